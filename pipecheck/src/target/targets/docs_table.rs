//! [`invariants_table`]: the markdown table of targets' invariants and the planted bugs
//! that break them, generated from their declarations, so a README's table cannot drift
//! from the code (a project keeps the table in its docs, and a test of its own compares
//! the two).

use pipecheck_sync::{InvariantId, PlantedFault};

use super::Target;

/// The first line of a generated table in a markdown file.
pub const TABLE_START: &str =
    "<!-- generated from the targets' declarations: edit them, then regenerate (see the README) -->";
/// The line after a generated table.
pub const TABLE_END: &str = "<!-- end of the generated table -->";

/// A markdown table with one row per invariant the `targets` check: its id, its
/// statement, and the planted bugs declared to break it (weak-memory ones marked
/// "loom only", real-time ones "shuttle only"; bugs that break it besides their own
/// invariant listed after "also:"). With several targets, each bug is named with its
/// target.
pub fn invariants_table(targets: &[Target]) -> String {
    let mut invariants: Vec<(InvariantId, &'static str)> = Vec::new();
    for (id, statement) in targets.iter().flat_map(Target::invariants) {
        if !invariants.iter().any(|(seen, _)| seen == id) {
            invariants.push((*id, statement));
        }
    }
    let named = |target: &Target, fault: &PlantedFault| {
        let engines = if fault.needs_weak_memory() {
            " (loom only)"
        } else if fault.needs_real_time() {
            " (shuttle only)"
        } else {
            ""
        };
        let owner = if targets.len() > 1 { format!("{}: ", target.name()) } else { String::new() };
        format!("{owner}`{}`{engines}", fault.name())
    };
    let mut lines = vec!["| invariant | statement | planted bugs |".to_owned(), "|---|---|---|".to_owned()];
    for (id, statement) in invariants {
        let faults = |own: bool| -> Vec<String> {
            targets
                .iter()
                .flat_map(|t| t.planted().iter().map(move |f| (t, *f)))
                .filter(|(_, f)| if own { f.breaks() == id } else { f.breaks() != id && f.is_broken_as(id) })
                .map(|(t, f)| named(t, f))
                .collect()
        };
        let (own, also) = (faults(true), faults(false));
        let mut cell = if own.is_empty() { "none of its own".to_owned() } else { own.join(", ") };
        if !also.is_empty() {
            cell.push_str(&format!("; also: {}", also.join(", ")));
        }
        lines.push(format!("| `{id}` | {} | {cell} |", statement.replace('|', "\\|")));
    }
    lines.join("\n") + "\n"
}

/// `markdown` with the text between [`TABLE_START`] and [`TABLE_END`] replaced by
/// `table`, or why it cannot be (the markers are missing or out of order).
pub fn with_table(markdown: &str, table: &str) -> Result<String, String> {
    let start = markdown.find(TABLE_START).ok_or_else(|| format!("no line `{TABLE_START}`"))?;
    let body = start + TABLE_START.len() + 1;
    let end = markdown[body.min(markdown.len())..]
        .find(TABLE_END)
        .map(|at| body + at)
        .ok_or_else(|| format!("no line `{TABLE_END}` after the table's start"))?;
    Ok(format!("{}{table}{}", &markdown[..body], &markdown[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linearizability::STATEMENT;

    /// The campaign's test target: a row per invariant, its own bugs in declaration
    /// order (the weak-memory one marked), and `linearizable`, which it declares through
    /// its sequential model, with none.
    #[test]
    fn the_table_lists_each_invariant_with_the_bugs_that_break_it() {
        let table = invariants_table(&[crate::campaign::fixture::counter()]);
        let expected = [
            "| invariant | statement | planted bugs |".to_owned(),
            "|---|---|---|".to_owned(),
            "| `counts-every-add` | a total read back is the number of adds before it | `LostUpdate`, \
             `StuckAtZero`, `RelaxedPublish` (loom only) |"
                .to_owned(),
            format!("| `linearizable` | {STATEMENT} | none of its own |"),
        ];
        assert_eq!(table, expected.join("\n") + "\n");
    }

    #[test]
    fn a_table_without_its_markers_is_refused_by_name() {
        let error = with_table("# no table\n", "| x |\n").unwrap_err();
        assert!(error.contains("no line `<!-- generated"), "{error}");
        let only_start = format!("{TABLE_START}\n| old |\n");
        assert!(with_table(&only_start, "| x |\n").unwrap_err().contains("end of the generated table"));
        let both = format!("before\n{TABLE_START}\n| old |\n{TABLE_END}\nafter\n");
        assert_eq!(
            with_table(&both, "| new |\n").unwrap(),
            format!("before\n{TABLE_START}\n| new |\n{TABLE_END}\nafter\n")
        );
    }
}
