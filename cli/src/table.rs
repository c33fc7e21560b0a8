//! Plain aligned columns: no colours, no box drawing, nothing to depend on.

/// A table with a header row; columns are padded to their widest cell.
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    /// Right-align these columns (numbers).
    right: Vec<bool>,
    /// Lines printed right under a row (indented, not aligned).
    notes: Vec<Vec<String>>,
}

impl Table {
    pub fn new(header: &[&str]) -> Self {
        Table {
            header: header.iter().map(|s| s.to_string()).collect(),
            rows: Vec::new(),
            right: vec![false; header.len()],
            notes: Vec::new(),
        }
    }

    /// Right-align column `i`.
    pub fn right(mut self, cols: &[usize]) -> Self {
        for &c in cols {
            if c < self.right.len() {
                self.right[c] = true;
            }
        }
        self
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
        self.notes.push(Vec::new());
    }

    /// An indented line under the last row.
    pub fn note(&mut self, line: String) {
        if let Some(n) = self.notes.last_mut() {
            n.push(line);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Render with every line prefixed by `indent`.
    pub fn render(&self, indent: &str) -> String {
        let cols = self.header.len();
        let mut width = vec![0usize; cols];
        for r in std::iter::once(&self.header).chain(&self.rows) {
            for (i, c) in r.iter().enumerate().take(cols) {
                width[i] = width[i].max(c.chars().count());
            }
        }
        let mut out = String::new();
        let line = |r: &Vec<String>, out: &mut String| {
            let mut s = String::from(indent);
            for (i, w) in width.iter().enumerate() {
                let c = r.get(i).map(String::as_str).unwrap_or("");
                let pad = w.saturating_sub(c.chars().count());
                if i > 0 {
                    s.push_str("  ");
                }
                if self.right[i] {
                    s.push_str(&" ".repeat(pad));
                    s.push_str(c);
                } else {
                    s.push_str(c);
                    s.push_str(&" ".repeat(pad));
                }
            }
            out.push_str(s.trim_end());
            out.push('\n');
        };
        line(&self.header, &mut out);
        for (r, notes) in self.rows.iter().zip(&self.notes) {
            line(r, &mut out);
            for n in notes {
                out.push_str(indent);
                out.push_str("  ");
                out.push_str(n);
                out.push('\n');
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligns_columns() {
        let mut t = Table::new(&["NAME", "N"]).right(&[1]);
        t.row(vec!["a".into(), "10".into()]);
        t.row(vec!["long-name".into(), "2".into()]);
        t.note("note".into());
        assert_eq!(t.render(""), "NAME        N\na          10\nlong-name   2\n  note\n");
    }
}
