//! The scripted demo model behind `a2ui-agent serve` (issue 5).
