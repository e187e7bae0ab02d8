//! Packaged charts (`.tgz`) as Helm's `pkg/chart/loader/archive` reads them: the files under the archive's top
//! directory, with its refusals of absolute paths, parent references, drive letters, a `Chart.yaml` outside the
//! top directory, and files or archives past its size limits; and `EnsureArchive`'s first look at a file.

use std::io::Read;

use super::gzip::{GzipError, GzipReader};
use super::tar::{TYPE_LINK, TYPE_SYMLINK, TYPE_X_GLOBAL_HEADER, TYPE_X_HEADER, TarError, TarReader};
use berth_go::path;
use berth_go::strconv::quote;

/// `MaxDecompressedChartSize`: 100 MiB of file contents per archive.
pub const MAX_DECOMPRESSED_CHART_SIZE: i64 = 100 * 1024 * 1024;
/// `MaxDecompressedFileSize`: 5 MiB per file (archive entries and chart directory files alike).
pub const MAX_DECOMPRESSED_FILE_SIZE: i64 = 5 * 1024 * 1024;
/// berth's own bound on everything decompressed (headers, padding, skipped data included): Helm bounds file
/// contents only, so an archive of endless empty entries would run until memory ends. Far above any real chart.
const MAX_DECOMPRESSED_STREAM: u64 = 4 * MAX_DECOMPRESSED_CHART_SIZE as u64;
/// berth's bound on the entries of one archive: empty files cost Helm's size budget nothing, so without it an
/// archive of empty entries would be read to the stream bound, hundreds of thousands of files. Far above any
/// real chart.
pub const MAX_ARCHIVE_ENTRIES: usize = 50_000;

const UTF8_BOM: &[u8] = &[0xEF, 0xBB, 0xBF];

/// A file read from an archive or a directory (`archive.BufferedFile`): the same fields as a chart file.
pub(crate) type BufferedFile = crate::chart::File;

/// Why an archive could not be read; `Gzip` is what Helm tests with `errors.Is(err, gzip.ErrHeader)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ArchiveError {
    GzipHeader,
    Other(String),
}

impl std::fmt::Display for ArchiveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArchiveError::GzipHeader => f.write_str(super::gzip::ERR_HEADER),
            ArchiveError::Other(text) => f.write_str(text),
        }
    }
}

fn other(text: impl Into<String>) -> ArchiveError {
    ArchiveError::Other(text.into())
}

fn too_large() -> ArchiveError {
    other(format!("decompressed chart is larger than the maximum size {MAX_DECOMPRESSED_CHART_SIZE}"))
}

impl From<TarError> for ArchiveError {
    fn from(error: TarError) -> Self {
        match error {
            TarError::Gzip(GzipError::Header) => ArchiveError::GzipHeader,
            TarError::Gzip(other_error) => other(other_error.to_string()),
            TarError::Format(text) => other(text),
            TarError::Budget => too_large(),
        }
    }
}

/// A hard or symbolic link entry of an archive. Helm reads a link as an empty file (its data is never read), and
/// so does berth when it loads a chart; writing a chart out refuses a link that points outside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ArchiveLink {
    /// The entry's path in the chart (as its file's).
    pub name: String,
    /// What it points at: for a symbolic link relative to its own directory, for a hard link an archive path.
    pub target: String,
    pub hard: bool,
}

/// What an archive holds: its files, and which of them are links.
#[derive(Debug, Default)]
pub(crate) struct ArchiveContents {
    pub files: Vec<BufferedFile>,
    pub links: Vec<ArchiveLink>,
}

/// `LoadArchiveFiles`: every regular entry under the top directory, in archive order.
pub(crate) fn load_archive_files(input: impl Read) -> Result<Vec<BufferedFile>, ArchiveError> {
    read_archive(input).map(|contents| contents.files)
}

/// [`load_archive_files`], with the link entries named apart.
pub(crate) fn read_archive(input: impl Read) -> Result<ArchiveContents, ArchiveError> {
    let gzip = GzipReader::new(input).map_err(|error| match error {
        GzipError::Header => ArchiveError::GzipHeader,
        other_error => other(other_error.to_string()),
    })?;
    let mut tar = TarReader::new(gzip, MAX_DECOMPRESSED_STREAM);
    let mut files = Vec::new();
    let mut links = Vec::new();
    let mut remaining = MAX_DECOMPRESSED_CHART_SIZE;
    let mut entries = 0usize;
    while let Some(header) = tar.next()? {
        entries += 1;
        if entries > MAX_ARCHIVE_ENTRIES {
            return Err(other(format!("chart archive has more than {MAX_ARCHIVE_ENTRIES} entries")));
        }
        if header.is_dir() {
            continue;
        }
        if header.typeflag == TYPE_X_GLOBAL_HEADER || header.typeflag == TYPE_X_HEADER {
            continue;
        }
        let name = entry_name(&header.name)?;
        if header.typeflag == TYPE_LINK || header.typeflag == TYPE_SYMLINK {
            links.push(ArchiveLink {
                name: name.clone(),
                target: header.link_name.clone(),
                hard: header.typeflag == TYPE_LINK,
            });
        }
        if header.size > remaining {
            return Err(too_large());
        }
        if header.size > MAX_DECOMPRESSED_FILE_SIZE {
            return Err(other(format!(
                "decompressed chart file {} is larger than the maximum file size {MAX_DECOMPRESSED_FILE_SIZE}",
                quote(&header.name)
            )));
        }
        let mut data = Vec::new();
        let written = tar.read_data(remaining, &mut data)?;
        remaining -= written;
        if written < header.size || remaining <= 0 {
            return Err(too_large());
        }
        let data = match data.strip_prefix(UTF8_BOM) {
            Some(rest) => rest.to_vec(),
            None => data,
        };
        files.push(BufferedFile { name, data: data.into(), mod_time: Some(header.mod_time) });
    }
    if files.is_empty() {
        return Err(other("no files in chart archive"));
    }
    Ok(ArchiveContents { files, links })
}

/// Whether `link` points outside the chart: a symbolic link whose target is absolute or climbs above the chart
/// from the link's directory, or a hard link to an archive path Helm would refuse as an entry.
pub(crate) fn link_leaves_chart(link: &ArchiveLink) -> bool {
    let target = link.target.replace('\\', "/");
    let bytes = target.as_bytes();
    let has_drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    if target.starts_with('/') || has_drive {
        return true;
    }
    if link.hard {
        return entry_name(&target).is_err();
    }
    let resolved = match link.name.rsplit_once('/') {
        Some((directory, _)) => path::clean(&format!("{directory}/{target}")),
        None => path::clean(&target),
    };
    resolved == ".." || resolved.starts_with("../")
}

/// One entry of a gzipped tar archive, as read: no chart rule applied to its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TarEntry {
    pub name: String,
    /// The tar type flag (`b'0'` or `0` for a regular file, `b'5'` for a directory, ...).
    pub typeflag: u8,
    pub mode: i64,
    /// A regular file's content; empty for the other types.
    pub data: Vec<u8>,
}

impl TarEntry {
    /// A directory entry (by type, or by mode as Go's `FileInfo().IsDir()` says).
    pub fn is_dir(&self) -> bool {
        const C_ISDIR: i64 = 0o40000;
        self.typeflag == super::tar::TYPE_DIR || (self.mode & !0o7777) == C_ISDIR
    }

    /// A regular file (`tar.TypeReg`, or the old `\0` flag).
    pub fn is_regular(&self) -> bool {
        matches!(self.typeflag, b'0' | 0) && !self.is_dir()
    }

    /// A PAX header Go hands out as an entry.
    pub fn is_pax_header(&self) -> bool {
        matches!(self.typeflag, TYPE_X_GLOBAL_HEADER | TYPE_X_HEADER)
    }
}

/// Every entry of a `.tgz` that is no chart (a Helm plugin archive), in archive order, within the bounds chart
/// archives are read with (total and per-file size, entry count).
///
/// # Errors
/// The gzip or tar error, or the bound that was passed.
pub fn tar_gz_entries(data: &[u8]) -> Result<Vec<TarEntry>, String> {
    let gzip = GzipReader::new(data).map_err(|error| error.to_string())?;
    let mut tar = TarReader::new(gzip, MAX_DECOMPRESSED_STREAM);
    let mut entries = Vec::new();
    let mut remaining = MAX_DECOMPRESSED_CHART_SIZE;
    while let Some(header) = tar.next().map_err(|error| ArchiveError::from(error).to_string())? {
        if entries.len() >= MAX_ARCHIVE_ENTRIES {
            return Err(format!("archive has more than {MAX_ARCHIVE_ENTRIES} entries"));
        }
        let mut entry =
            TarEntry { name: header.name.clone(), typeflag: header.typeflag, mode: header.mode, data: Vec::new() };
        if entry.is_regular() {
            if header.size > MAX_DECOMPRESSED_FILE_SIZE || header.size > remaining {
                return Err(format!("archive file {} is too large", quote(&header.name)));
            }
            let written =
                tar.read_data(remaining, &mut entry.data).map_err(|error| ArchiveError::from(error).to_string())?;
            remaining -= written;
        }
        entries.push(entry);
    }
    Ok(entries)
}

/// The path of an entry inside the chart (the top directory dropped), with Helm's safety checks.
fn entry_name(raw: &str) -> Result<String, ArchiveError> {
    // Archives made on Windows may use backslashes.
    let delimiter = if raw.contains('\\') { '\\' } else { '/' };
    let parts: Vec<&str> = raw.split(delimiter).collect();
    let joined = parts[1..].join(&delimiter.to_string());
    let normalized = joined.replace(delimiter, "/");
    if normalized.starts_with('/') {
        return Err(other("chart illegally contains absolute paths"));
    }
    let cleaned = path::clean(&normalized);
    if cleaned == "." {
        return Err(other(format!("chart illegally contains content outside the base directory: {}", quote(raw))));
    }
    if cleaned.starts_with("..") {
        return Err(other("chart illegally references parent directory"));
    }
    let bytes = cleaned.as_bytes();
    if bytes.len() >= 3 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' && bytes[2] == b'/' {
        return Err(other("chart contains illegally named files"));
    }
    if parts[0] == "Chart.yaml" {
        return Err(other("chart yaml not in base directory"));
    }
    Ok(cleaned)
}

/// `EnsureArchive`: an actionable error when a file given as a chart is not gzip.
pub(crate) fn ensure_archive(name: &str, head: &[u8]) -> Result<(), String> {
    // Helm sniffs its whole 512-byte buffer, zeros after a short file included (so short text reads as binary).
    let mut buffer = [0u8; 512];
    let len = head.len().min(512);
    buffer[..len].copy_from_slice(&head[..len]);
    let head = &buffer[..];
    let content_type = detect_content_type(head);
    if content_type != "application/x-gzip" && !head.starts_with(b"\x1F\x8B\x08") {
        if name.ends_with(".yml") || name.ends_with(".yaml") {
            return Err(format!("file '{name}' seems to be a YAML file, but expected a gzipped archive"));
        }
        return Err(format!("file '{name}' does not appear to be a gzipped archive; got '{content_type}'"));
    }
    Ok(())
}

/// The part of Go's `http.DetectContentType` that decides what a chart file's first bytes look like: the
/// binary signatures most often mistaken for charts, HTML and XML, UTF BOMs, then text or octet-stream.
fn detect_content_type(data: &[u8]) -> &'static str {
    let signatures: &[(&[u8], &str)] = &[
        (b"\x1F\x8B\x08", "application/x-gzip"),
        (b"PK\x03\x04", "application/zip"),
        (b"%PDF-", "application/pdf"),
        (b"\x89PNG\x0D\x0A\x1A\x0A", "image/png"),
        (b"\xFF\xD8\xFF", "image/jpeg"),
        (b"GIF87a", "image/gif"),
        (b"GIF89a", "image/gif"),
        (b"BZh", "application/x-bzip2"),
        (b"Rar!\x1A\x07", "application/x-rar-compressed"),
        (b"\x00\x00\x01\x00", "image/x-icon"),
        (b"%!PS-Adobe-", "application/postscript"),
    ];
    if let Some((_, kind)) = signatures.iter().find(|(sig, _)| data.starts_with(sig)) {
        return kind;
    }
    if data.starts_with(&[0xFE, 0xFF]) {
        return "text/plain; charset=utf-16be";
    }
    if data.starts_with(&[0xFF, 0xFE]) {
        return "text/plain; charset=utf-16le";
    }
    if data.starts_with(UTF8_BOM) {
        return "text/plain; charset=utf-8";
    }
    let start = data.iter().position(|b| !matches!(b, b'\t' | b'\n' | 0x0C | b'\r' | b' ')).unwrap_or(data.len());
    let trimmed = &data[start..];
    let html_tags: &[&[u8]] = &[
        b"<!DOCTYPE HTML",
        b"<HTML",
        b"<HEAD",
        b"<SCRIPT",
        b"<IFRAME",
        b"<H1",
        b"<DIV",
        b"<FONT",
        b"<TABLE",
        b"<A",
        b"<STYLE",
        b"<TITLE",
        b"<B",
        b"<BODY",
        b"<BR",
        b"<P",
        b"<!--",
    ];
    for tag in html_tags {
        if trimmed.len() > tag.len()
            && trimmed[..tag.len()].eq_ignore_ascii_case(tag)
            && matches!(trimmed[tag.len()], b' ' | b'>')
        {
            return "text/html; charset=utf-8";
        }
    }
    if trimmed.starts_with(b"<?xml") {
        return "text/xml; charset=utf-8";
    }
    let binary = data.iter().any(|b| matches!(b, 0x00..=0x08 | 0x0B | 0x0E..=0x1A | 0x1C..=0x1F));
    if binary { "application/octet-stream" } else { "text/plain; charset=utf-8" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_names_are_checked() {
        assert_eq!(entry_name("chart/templates/a.yaml").unwrap(), "templates/a.yaml");
        assert_eq!(entry_name("chart\\templates\\a.yaml").unwrap(), "templates/a.yaml");
        assert_eq!(entry_name("chart//etc/passwd").unwrap_err().to_string(), "chart illegally contains absolute paths");
        assert_eq!(entry_name("chart/../../x").unwrap_err().to_string(), "chart illegally references parent directory");
        assert_eq!(
            entry_name("chart").unwrap_err().to_string(),
            "chart illegally contains content outside the base directory: \"chart\""
        );
        assert_eq!(
            entry_name("Chart.yaml").unwrap_err().to_string(),
            "chart illegally contains content outside the base directory: \"Chart.yaml\""
        );
        assert_eq!(entry_name("x/c:/evil").unwrap_err().to_string(), "chart contains illegally named files");
    }

    #[test]
    fn ensure_archive_explains_what_it_got() {
        assert!(ensure_archive("c.tgz", b"\x1F\x8B\x08\0").is_ok());
        assert_eq!(
            ensure_archive("values.yaml", b"a: 1\n").unwrap_err(),
            "file 'values.yaml' seems to be a YAML file, but expected a gzipped archive"
        );
        assert_eq!(
            ensure_archive("c.tgz", b"a: 1\n").unwrap_err(),
            "file 'c.tgz' does not appear to be a gzipped archive; got 'application/octet-stream'"
        );
        assert_eq!(
            ensure_archive("c.tgz", "text ".repeat(120).as_bytes()).unwrap_err(),
            "file 'c.tgz' does not appear to be a gzipped archive; got 'text/plain; charset=utf-8'"
        );
        assert_eq!(
            ensure_archive("c.tgz", b"\x01\x02").unwrap_err(),
            "file 'c.tgz' does not appear to be a gzipped archive; got 'application/octet-stream'"
        );
    }
}
