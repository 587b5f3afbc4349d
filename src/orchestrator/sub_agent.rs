//! [`SubAgent`]: one remote agent behind the orchestrator, as a router sees it (its card's
//! name, description and skills, and the namespace its surfaces go out under) and as the
//! orchestrator calls it (its client).

use crate::a2a::card::{AgentCard, AgentSkill};
use crate::client::Client;

/// A remote A2A agent the orchestrator hands turns to, read from its card when the
/// orchestrator connected.
///
/// # Example
///
/// A routing closure picks one by what its card says:
///
/// ```
/// use a2ui_agent::orchestrator::SubAgent;
///
/// fn pick(text: &str, agents: &[SubAgent]) -> Option<usize> {
///     let wanted = if text.contains("rain") { "weather" } else { "restaurant" };
///     agents.iter().position(|agent| agent.name().to_lowercase().contains(wanted))
/// }
/// ```
#[derive(Debug, Clone)]
pub struct SubAgent {
    name: String,
    namespace: String,
    description: String,
    skills: Vec<AgentSkill>,
    client: Client,
}

impl SubAgent {
    /// The sub-agent of `card`, called through `client`, its surfaces under `namespace`.
    pub(super) fn new(card: AgentCard, namespace: String, client: Client) -> Self {
        Self {
            name: card.name,
            namespace,
            description: card.description,
            skills: card.skills,
            client,
        }
    }

    /// The name on its card.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What its surface ids are prefixed with on their way to the user (`namespace:id`): a
    /// slug of its name, unique among the orchestrator's sub-agents.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// The description on its card.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The skills on its card.
    pub fn skills(&self) -> &[AgentSkill] {
        &self.skills
    }

    /// Its client.
    pub(super) fn client(&self) -> &Client {
        &self.client
    }
}

/// The most characters of a namespace's slug (before a `-2` that makes it unique).
const MAX_SLUG: usize = 40;

/// A namespace for an agent called `name`, none of `taken`: its name in lower case, runs of
/// anything but ASCII letters and digits made one `-`, at most [`MAX_SLUG`] characters cut
/// at a word's end (`agent` when nothing is left), then `-2`, `-3`... until it is free.
/// Never holds the surface id separator.
pub(super) fn namespace_for(name: &str, taken: &[String]) -> String {
    let mut slug = String::new();
    for c in name.chars() {
        if slug.len() >= MAX_SLUG {
            // A word cut short goes whole, when an earlier one is left.
            if c.is_ascii_alphanumeric()
                && !slug.ends_with('-')
                && let Some(end) = slug.rfind('-')
            {
                slug.truncate(end);
            }
            break;
        }
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug = match slug.trim_end_matches('-') {
        "" => "agent".to_owned(),
        slug => slug.to_owned(),
    };
    let mut candidate = slug.clone();
    let mut n = 2;
    while taken.contains(&candidate) {
        candidate = format!("{slug}-{n}");
        n += 1;
    }
    candidate
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_namespace_is_a_unique_slug_of_the_name() {
        let taken = vec!["weather".to_owned(), "weather-2".to_owned()];
        assert_eq!(namespace_for("Weather", &taken), "weather-3");
        assert_eq!(
            namespace_for("a2ui-agent demo: restaurant finder", &[]),
            "a2ui-agent-demo-restaurant-finder"
        );
        let long = "The very long name of an agent that goes on and on";
        assert_eq!(
            namespace_for(long, &[]),
            "the-very-long-name-of-an-agent-that-goes"
        );
        let cut = "The very long name of an agent that goesss on";
        assert_eq!(
            namespace_for(cut, &[]),
            "the-very-long-name-of-an-agent-that"
        );
        assert_eq!(namespace_for(&"x".repeat(60), &[]), "x".repeat(40));
        assert_eq!(namespace_for(":::", &[]), "agent");
        assert!(!namespace_for("a:b", &[]).contains(super::super::surfaces::SEPARATOR));
    }
}
