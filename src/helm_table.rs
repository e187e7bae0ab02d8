//! Helm's text tables: gosuri/uitable as Helm's commands configure it. Columns are joined with a tab, each cell
//! padded with spaces to its column's width (the last column too), and a cell wider than the maximum column
//! width is cut to it with `...` (uitable's `strutil.Resize`, which cuts bytes). Widths are display widths
//! (go-runewidth: an East Asian wide character counts two). A cell with line breaks spans several lines.
//!
//! Pure: rows in, text out.

use unicode_width::UnicodeWidthStr;

/// The table's text without the final newline (uitable's `String()`); `max_column_width` 0 means no limit.
pub fn render(rows: &[Vec<String>], max_column_width: usize) -> String {
    let mut widths: Vec<usize> = Vec::new();
    for row in rows {
        for (index, cell) in row.iter().enumerate() {
            if widths.len() <= index {
                widths.push(0);
            }
            let mut width = cell.split('\n').map(display_width).max().unwrap_or(0);
            if max_column_width != 0 && width > max_column_width {
                width = max_column_width;
            }
            widths[index] = widths[index].max(width);
        }
    }
    let mut lines = Vec::new();
    for row in rows {
        // Each cell resized to its column's width, then split into its lines; short cells are blank below.
        let cells: Vec<Vec<String>> = row
            .iter()
            .enumerate()
            .map(|(index, cell)| resize(cell, widths[index]).split('\n').map(str::to_string).collect())
            .collect();
        let height = cells.iter().map(Vec::len).max().unwrap_or(1);
        for line in 0..height {
            let parts: Vec<String> = cells
                .iter()
                .enumerate()
                .map(|(index, lines)| match lines.get(line) {
                    Some(text) => resize(text, widths[index]),
                    None => " ".repeat(widths[index].max(1)),
                })
                .collect();
            lines.push(parts.join("\t"));
        }
    }
    lines.join("\n")
}

/// go-runewidth's `StringWidth`: a line break (a control character) has no width.
fn display_width(text: &str) -> usize {
    text.split('\n').map(UnicodeWidthStr::width).sum()
}

/// `strutil.Resize`: padded with spaces to `width`, or cut to `width - 3` bytes and `...` when wider. Like
/// uitable, the cut counts bytes; berth moves it back to a character boundary so the text stays UTF-8.
fn resize(text: &str, width: usize) -> String {
    let current = display_width(text);
    if current == width || width == 0 {
        return text.to_string();
    }
    if current < width {
        return format!("{text}{}", " ".repeat(width - current));
    }
    let mut cut = width.saturating_sub(3).min(text.len());
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}...", &text[..cut])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(cells: &[&[&str]]) -> Vec<Vec<String>> {
        cells.iter().map(|row| row.iter().map(|cell| cell.to_string()).collect()).collect()
    }

    #[test]
    fn cells_are_padded_and_cut_as_uitable_does() {
        let table = rows(&[&["NAME", "DESCRIPTION"], &["a/nginx", "A web server for everything under the sun"]]);
        assert_eq!(render(&table, 20), "NAME   \tDESCRIPTION         \na/nginx\tA web server for ...");
        assert_eq!(render(&table, 0).lines().nth(1), Some("a/nginx\tA web server for everything under the sun"));
        let wide = rows(&[&["名前", "x"], &["ab", "y"]]);
        assert_eq!(render(&wide, 50), "名前\tx\nab  \ty");
        // uitable measures the whole cell before splitting it: a cell of several lines is cut when the lines
        // together are wider than the column.
        let multi = rows(&[&["a", "one\ntwo"], &["b", "c"]]);
        assert_eq!(render(&multi, 50), "a\t...\nb\tc  ");
        let fits = rows(&[&["a", "one\ntwo"], &["b", "abcdefgh"]]);
        assert_eq!(render(&fits, 50), "a\tone     \n \ttwo     \nb\tabcdefgh");
    }
}
