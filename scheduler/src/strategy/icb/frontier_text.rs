//! The ICB frontier as versioned text, so that it can live in the agent between executions
//! and survive a JVM restart: the settings, every work item (preemptions, and for a
//! partitioned search its cell and order key, then its prefix in the schedule format's tokens),
//! the pruning tables and the graphs seen.

use super::{order, Icb, Item};
use crate::schedule::Schedule;
use crate::strategy::partition::Partition;
use std::collections::HashMap;
use std::fmt::Write as _;

/// Header of the frontier's text form (2: items may carry a cell and an order key).
pub const FRONTIER_HEADER: &str = "rankcheck-icb-frontier 2";

impl Icb {
    /// The frontier as text (see the module doc); `from_text` restores it.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "{FRONTIER_HEADER}");
        let _ = write!(
            s,
            "max {} bound {} prune {} exhausted {} executions {} divergences {}",
            self.max_bound,
            self.bound,
            u8::from(self.prune),
            u8::from(self.exhausted),
            self.executions,
            self.divergences
        );
        if let Some(p) = self.partition {
            let _ = write!(s, " partition {} {}", p.index + 1, p.count);
        }
        s.push('\n');
        let item = |s: &mut String, tag: &str, it: &Item| {
            let _ = write!(s, "{tag} {}", it.preemptions);
            if let Some(cell) = it.cell {
                let _ = write!(s, " cell={cell}");
            }
            if !it.key.is_empty() {
                let _ = write!(s, " key={}", order::to_text(&it.key));
            }
            for &(c, count) in it.choices.runs() {
                match count {
                    1 => {
                        let _ = write!(s, " {c}");
                    }
                    k => {
                        let _ = write!(s, " {c}*{k}");
                    }
                }
            }
            s.push('\n');
        };
        item(&mut s, "active", &self.active);
        for it in &self.current {
            item(&mut s, "current", it);
        }
        for it in &self.next {
            item(&mut s, "next", it);
        }
        let mut table = |tag: &str, m: &HashMap<(u64, u32), u32>| {
            let mut rows: Vec<_> = m.iter().collect();
            rows.sort();
            for ((h, t), p) in rows {
                let _ = writeln!(s, "{tag} {h:016x} {t} {p}");
            }
        };
        table("visited", &self.visited);
        table("claimed", &self.claimed);
        let mut graphs: Vec<_> = self.graphs.iter().collect();
        graphs.sort();
        for g in graphs {
            let _ = writeln!(s, "graph {g:016x}");
        }
        s
    }

    /// Restores a frontier written by [`Icb::to_text`].
    pub fn from_text(text: &str) -> Result<Icb, FrontierError> {
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.trim()))
            .filter(|(_, l)| !l.is_empty());
        let err = |line: usize, message: String| FrontierError { line, message };
        match lines.next() {
            Some((_, l)) if l == FRONTIER_HEADER => {}
            Some((n, l)) => {
                return Err(err(n, format!("expected `{FRONTIER_HEADER}`, found `{l}`")))
            }
            None => return Err(err(1, "empty frontier".into())),
        }
        let (n, head) = lines
            .next()
            .ok_or_else(|| err(2, "missing settings line".into()))?;
        let fields: Vec<&str> = head.split_whitespace().collect();
        let after = |key: &str, k: usize| -> Option<u64> {
            let pos = fields.iter().position(|f| *f == key)?;
            fields.get(pos + k).and_then(|v| v.parse().ok())
        };
        let num = |key: &str| -> Result<u64, FrontierError> {
            if !fields.contains(&key) {
                return Err(err(n, format!("missing `{key}`")));
            }
            after(key, 1).ok_or_else(|| err(n, format!("`{key}` needs a number")))
        };
        let to_u32 =
            |v: u64, key: &str| u32::try_from(v).map_err(|_| err(n, format!("`{key}` too large")));
        let mut icb = Icb::new(to_u32(num("max")?, "max")?, num("prune")? != 0);
        icb.bound = to_u32(num("bound")?, "bound")?;
        icb.exhausted = num("exhausted")? != 0;
        icb.executions = num("executions")?;
        icb.divergences = num("divergences")?;
        if fields.contains(&"partition") {
            let part = after("partition", 1)
                .zip(after("partition", 2))
                .and_then(|(i, c)| Partition::parse(&format!("{i}/{c}")).ok())
                .ok_or_else(|| err(n, "`partition` needs I N with 1 <= I <= N".into()))?;
            icb.partition = Some(part);
        }
        for (n, line) in lines {
            let mut words = line.split_whitespace();
            let tag = words.next().unwrap_or("");
            let rest: Vec<&str> = words.collect();
            match tag {
                "active" | "current" | "next" => {
                    let item = parse_item(&rest).map_err(|m| err(n, m))?;
                    match tag {
                        "active" => icb.active = item,
                        "current" => icb.current.push(item),
                        _ => icb.next.push(item),
                    }
                }
                "visited" | "claimed" => {
                    let parsed = (|| {
                        let h = u64::from_str_radix(rest.first()?, 16).ok()?;
                        let t = rest.get(1)?.parse().ok()?;
                        let p = rest.get(2)?.parse().ok()?;
                        Some(((h, t), p))
                    })()
                    .ok_or_else(|| err(n, format!("`{tag}` needs: hash thread preemptions")))?;
                    if tag == "visited" {
                        icb.visited.insert(parsed.0, parsed.1);
                    } else {
                        icb.claimed.insert(parsed.0, parsed.1);
                    }
                }
                "graph" => {
                    let h = rest
                        .first()
                        .and_then(|h| u64::from_str_radix(h, 16).ok())
                        .ok_or_else(|| err(n, "`graph` needs a hex hash".into()))?;
                    icb.graphs.insert(h);
                }
                other => return Err(err(n, format!("unknown line `{other}`"))),
            }
        }
        Ok(icb)
    }
}

/// A work item's words after its tag: preemptions, `cell=K` and `key=…` when partitioned, then
/// the prefix in the schedule format's tokens (`t3`, `w1`, `t3*40`).
fn parse_item(words: &[&str]) -> Result<Item, String> {
    let preemptions = words
        .first()
        .and_then(|p| p.parse().ok())
        .ok_or("a work item starts with its preemption count")?;
    let mut rest = &words[1..];
    let mut cell = None;
    let mut key = Vec::new();
    while let Some(word) = rest.first() {
        if let Some(v) = word.strip_prefix("cell=") {
            cell = Some(v.parse().map_err(|_| format!("bad cell `{v}`"))?);
        } else if let Some(v) = word.strip_prefix("key=") {
            key = order::from_text(v).ok_or_else(|| format!("bad order key `{v}`"))?;
        } else {
            break;
        }
        rest = &rest[1..];
    }
    let tokens = rest.join(" ");
    let choices = Schedule::parse(&format!("{}\n{tokens}", crate::schedule::HEADER))
        .map_err(|e| format!("bad prefix: {}", e.message))?;
    Ok(Item {
        preemptions,
        cell,
        key,
        choices,
    })
}

/// A frontier text that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrontierError {
    /// 1-based line.
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for FrontierError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ICB frontier line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for FrontierError {}
