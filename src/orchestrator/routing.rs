//! Which sub-agent answers a turn when no model chooses: the one whose card's words (name,
//! description, and each skill's name, description, tags and examples) the user's text
//! shares most, or the one that answered last when the text says nothing either way.
//!
//! The match is on words, so it needs no model, no network and no configuration: an agent
//! card already says what an agent is for, and A2A puts skills on the card for exactly this.
//! Words are compared in lower case, a word matching another that it starts (at least four
//! letters: `restaurant` finds `restaurants`); a skill's name and tags count twice. Short
//! words and a few very common ones count for nothing.

use std::collections::HashSet;

use super::sub_agent::SubAgent;

/// Words too common to say which agent is meant.
const COMMON: [&str; 24] = [
    "the", "and", "for", "you", "your", "with", "what", "which", "that", "this", "can", "please",
    "want", "would", "like", "some", "about", "from", "have", "are", "there", "will", "how", "me",
];

/// The sub-agent of `agents` that `text` is most about, if its words say; else `last` (the
/// one that answered last in the conversation). Ties go to `last` when it is among them,
/// else to the first listed.
pub(super) fn by_skills(text: &str, agents: &[SubAgent], last: Option<usize>) -> Option<usize> {
    let wanted: HashSet<String> = words(text).collect();
    let scores: Vec<usize> = agents.iter().map(|agent| score(&wanted, agent)).collect();
    let best = scores.iter().copied().max().unwrap_or(0);
    if best == 0 {
        return last.filter(|&i| i < agents.len());
    }
    match last {
        Some(i) if scores.get(i) == Some(&best) => Some(i),
        _ => scores.iter().position(|&score| score == best),
    }
}

/// How much `agent`'s card says about the words `wanted`.
fn score(wanted: &HashSet<String>, agent: &SubAgent) -> usize {
    let mut once: Vec<String> = words(agent.name())
        .chain(words(agent.description()))
        .collect();
    let mut twice: Vec<String> = Vec::new();
    for skill in agent.skills() {
        twice.extend(words(&skill.name));
        for tag in &skill.tags {
            twice.extend(words(tag));
        }
        once.extend(words(&skill.description));
        for example in &skill.examples {
            once.extend(words(example));
        }
    }
    wanted
        .iter()
        .map(|word| {
            if twice.iter().any(|known| same(word, known)) {
                2
            } else if once.iter().any(|known| same(word, known)) {
                1
            } else {
                0
            }
        })
        .sum()
}

/// Whether two words are the same word (one starts the other, at least four letters shared).
fn same(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short == long || (short.len() >= 4 && long.starts_with(short))
}

/// The words of `text` worth comparing: lower case, at least three characters, not common.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| word.chars().count() >= 3)
        .map(str::to_lowercase)
        .filter(|word| !COMMON.contains(&word.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2a::card::{AgentCard, AgentSkill};
    use crate::client::Client;

    async fn agents() -> Vec<SubAgent> {
        // A client needs a card to connect to; the router never calls it.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap());
        let card = AgentCard::builder("x").url(&url).build();
        let server = crate::server::A2uiServer::builder(card, |_r: crate::Request| async { "ok" })
            .build()
            .unwrap();
        tokio::spawn(async move { axum::serve(listener, server.router()).await });
        let client = Client::connect(url).await.unwrap();
        let mut food = AgentSkill::new("find", "Find restaurants", "Books a table for dinner");
        food.tags = vec!["food".into(), "booking".into()];
        let mut sky = AgentSkill::new("forecast", "Weather forecast", "Rain, sun and wind");
        sky.examples = vec!["Will it rain in Oslo tomorrow?".into()];
        vec![
            SubAgent::new(
                AgentCard::builder("Restaurant finder").skill(food).build(),
                "restaurants".into(),
                client.clone(),
            ),
            SubAgent::new(
                AgentCard::builder("Weather").skill(sky).build(),
                "weather".into(),
                client,
            ),
        ]
    }

    #[tokio::test]
    async fn the_text_goes_to_the_agent_whose_skills_it_names() {
        let agents = agents().await;
        assert_eq!(by_skills("Dinner for two?", &agents, None), Some(0));
        assert_eq!(by_skills("I want some FOOD", &agents, Some(1)), Some(0));
        assert_eq!(
            by_skills("Is it going to rain tomorrow?", &agents, None),
            Some(1)
        );
        assert_eq!(by_skills("any good restaurant?", &agents, None), Some(0));
    }

    #[tokio::test]
    async fn text_that_names_no_skill_stays_with_the_last_agent_or_with_none() {
        let agents = agents().await;
        assert_eq!(by_skills("7 pm, thanks", &agents, Some(1)), Some(1));
        assert_eq!(by_skills("7 pm, thanks", &agents, None), None);
        assert_eq!(by_skills("hello", &agents, Some(9)), None, "a stale index");
    }
}
