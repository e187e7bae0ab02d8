//! Output rendering shared by subcommands: aligned text tables and JSON.

use crate::cli::error::Error;
use std::io::Write;

/// A text table with a header row, columns padded to their widest cell, as kubectl prints them.
pub struct Table {
    header: Vec<&'static str>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(header: Vec<&'static str>) -> Table {
        Table { header, rows: Vec::new() }
    }

    pub fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    pub fn render(&self) -> String {
        let mut widths: Vec<usize> = self.header.iter().map(|cell| cell.chars().count()).collect();
        for row in &self.rows {
            for (width, cell) in widths.iter_mut().zip(row) {
                *width = (*width).max(cell.chars().count());
            }
        }
        let mut text = String::new();
        let header = self.header.iter().map(|cell| cell.to_string()).collect::<Vec<_>>();
        for row in std::iter::once(&header).chain(&self.rows) {
            let last = row.len().saturating_sub(1);
            for (index, cell) in row.iter().enumerate() {
                if index == last {
                    text.push_str(cell);
                } else {
                    let padding = widths[index] - cell.chars().count() + 3;
                    text.push_str(cell);
                    text.extend(std::iter::repeat_n(' ', padding));
                }
            }
            text.push('\n');
        }
        text
    }
}

/// Writes `text` to stdout, treating a closed pipe as the reader's choice rather than an error.
pub fn print_stdout(text: &str) -> Result<(), Error> {
    print_stdout_bytes(text.as_bytes())
}

/// [`print_stdout`] for bytes that need not be UTF-8 (a Go template's output, a completion script).
pub fn print_stdout_bytes(bytes: &[u8]) -> Result<(), Error> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => Err(Error::Output(error)),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pads_every_column_but_the_last() {
        let mut table = Table::new(vec!["KIND", "NAME", "MESSAGE"]);
        table.push(vec!["Deployment".into(), "web".into(), "Ready: 1/3".into()]);
        table.push(vec!["Secret".into(), "credentials".into(), "Resource is always ready".into()]);
        assert_eq!(
            table.render(),
            "KIND         NAME          MESSAGE\n\
             Deployment   web           Ready: 1/3\n\
             Secret       credentials   Resource is always ready\n"
        );
    }
}
