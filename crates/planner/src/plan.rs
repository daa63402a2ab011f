//! Plans in the IPC text format: one `(action arg ...)` per line, `;` comments.

use crate::pddl::{ParseError, Pos};
use crate::task::{OpId, Task};

/// One step of a plan file, as written (lowercased).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanStep {
    pub action: String,
    pub args: Vec<String>,
    pub line: u32,
}

impl PlanStep {
    pub fn text(&self) -> String {
        let mut s = format!("({}", self.action);
        for a in &self.args {
            s.push(' ');
            s.push_str(a);
        }
        s.push(')');
        s
    }
}

/// Writes a plan of `task` in IPC format, ending with the cost comment.
pub fn format_plan(task: &Task, plan: &[OpId]) -> String {
    let mut s = String::new();
    let mut cost = 0u64;
    for &o in plan {
        let op = &task.operators[o as usize];
        s.push_str(&op.name);
        s.push('\n');
        cost += op.cost as u64;
    }
    let kind = if task.is_unit_cost() { "unit cost" } else { "general cost" };
    s.push_str(&format!("; cost = {cost} ({kind})\n"));
    s
}

/// Reads a plan file. Accepts the optional `N:` time prefix and `[D]` duration
/// suffix some planners print.
pub fn parse_plan(text: &str, file: &str) -> Result<Vec<PlanStep>, ParseError> {
    let mut steps = vec![];
    for (i, raw) in text.lines().enumerate() {
        let line_no = i as u32 + 1;
        let line = raw.split(';').next().unwrap_or("");
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let mut body = trimmed;
        if let Some((time, rest)) = body.split_once(':') {
            if time.trim().parse::<f64>().is_ok() {
                body = rest.trim();
            }
        }
        if let Some(open) = body.rfind('[') {
            if body.ends_with(']') && body[..open].trim_end().ends_with(')') {
                body = body[..open].trim_end();
            }
        }
        let col = (indent + 1) as u32;
        let err = |msg: &str| ParseError::new(file, Pos { line: line_no, col }, msg);
        let inner = body
            .strip_prefix('(')
            .and_then(|b| b.strip_suffix(')'))
            .ok_or_else(|| err("expected a plan step `(action arg ...)`"))?;
        if inner.contains('(') || inner.contains(')') {
            return Err(err("expected a plan step `(action arg ...)` with no nested parentheses"));
        }
        let mut words = inner.split_whitespace().map(str::to_lowercase);
        let action = words.next().ok_or_else(|| err("expected an action name inside `( )`"))?;
        steps.push(PlanStep { action, args: words.collect(), line: line_no });
    }
    Ok(steps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ipc_and_timed_formats() {
        let steps = parse_plan("; header\n(Pick-Up A)\n0.000: (stack a b) [1]\n\n; cost = 2\n", "p").unwrap();
        assert_eq!(steps.len(), 2);
        assert_eq!(steps[0].text(), "(pick-up a)");
        assert_eq!(steps[1].text(), "(stack a b)");
        assert_eq!(steps[1].line, 3);
    }

    #[test]
    fn malformed_step_names_its_line() {
        let e = parse_plan("(a b)\n  pick-up a\n", "plan.txt").unwrap_err();
        assert_eq!(e.to_string(), "plan.txt:2:3: expected a plan step `(action arg ...)`");
    }
}
