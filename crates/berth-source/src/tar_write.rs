//! Go's `archive/tar` writer as Helm's archives use it: USTAR headers (a PAX `path` record before an entry whose
//! name does not fit), modification times to the second, for chart archives (`helm package`, regular files
//! only) and plugin archives (`helm plugin package`: directories, files with their modes, links).
//!
//! Pure: a header in, its 512-byte blocks out; the caller writes the content and [`padding`] after it.

/// The two zero blocks that end an archive.
pub const END_OF_ARCHIVE: [u8; 1024] = [0; 1024];

/// What an entry is (the tar type flag).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryKind {
    File,
    Directory,
    /// A symbolic link to the target.
    Symlink(String),
}

impl EntryKind {
    fn flag(&self) -> u8 {
        match self {
            EntryKind::File => b'0',
            EntryKind::Directory => b'5',
            EntryKind::Symlink(_) => b'2',
        }
    }
}

/// One entry's header (Go's `tar.Header`, the fields Helm's archives set).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header<'a> {
    pub name: &'a str,
    pub kind: EntryKind,
    /// The mode: permission, set-id and sticky bits, as Go's `FileInfoHeader` sets them (charts' `0o644`).
    pub mode: u32,
    /// The content's length (0 but for files).
    pub size: u64,
    /// Seconds since the epoch.
    pub mod_time: i64,
    pub uid: u32,
    pub gid: u32,
}

impl<'a> Header<'a> {
    /// A regular file without an owner.
    pub fn file(name: &'a str, mode: u32, size: u64, mod_time: i64) -> Header<'a> {
        Header { name, kind: EntryKind::File, mode, size, mod_time, uid: 0, gid: 0 }
    }

    /// The header's blocks: a PAX extended header first when the name does not fit USTAR's fields.
    ///
    /// # Errors
    /// A name or link target that cannot be written, a file too large for USTAR.
    pub fn blocks(&self) -> Result<Vec<u8>, String> {
        let seconds = self.mod_time.max(0);
        let mut out = Vec::with_capacity(1024);
        let (prefix, short) = match split_ustar_name(self.name) {
            Some(split) => split,
            None => {
                let record = pax_record("path", self.name);
                let base = self.name.rsplit('/').next().unwrap_or(self.name);
                let pax_name: String = format!("PaxHeaders.0/{base}").chars().take(99).collect();
                let pax = Header {
                    name: &pax_name,
                    kind: EntryKind::File,
                    mode: 0o644,
                    size: 0,
                    mod_time: seconds,
                    uid: 0,
                    gid: 0,
                };
                out.extend_from_slice(&block(&pax, "", &pax_name, record.len() as u64, b'x')?);
                out.extend_from_slice(record.as_bytes());
                out.resize(out.len() + padding(record.len() as u64), 0);
                (String::new(), base.chars().take(99).collect())
            }
        };
        out.extend_from_slice(&block(self, &prefix, &short, self.size, self.kind.flag())?);
        Ok(out)
    }
}

/// The zeros after `size` bytes of content that fill its last block.
pub fn padding(size: u64) -> usize {
    let remainder = (size % 512) as usize;
    if remainder == 0 { 0 } else { 512 - remainder }
}

/// USTAR's name split: up to 100 bytes of name, up to 155 of prefix, cut at a `/`.
fn split_ustar_name(name: &str) -> Option<(String, String)> {
    if name.len() <= 100 {
        return Some((String::new(), name.to_string()));
    }
    let bytes = name.as_bytes();
    (1..bytes.len().min(156))
        .rev()
        .find(|&i| bytes[i] == b'/' && bytes.len() - i - 1 <= 100 && i <= 155)
        .map(|i| (name[..i].to_string(), name[i + 1..].to_string()))
}

/// A PAX record: `<length> <key>=<value>\n`, the length counting itself.
fn pax_record(key: &str, value: &str) -> String {
    let body = format!(" {key}={value}\n");
    let mut length = body.len() + 1;
    while format!("{length}{body}").len() != length {
        length += 1;
    }
    format!("{length}{body}")
}

/// Octal fields of 7 digits hold up to this; an owner id beyond it is written as 0.
const OCTAL_7: u32 = 0o777_7777;

fn block(header: &Header<'_>, prefix: &str, name: &str, size: u64, flag: u8) -> Result<[u8; 512], String> {
    let mut block = [0u8; 512];
    let mut put = |offset: usize, bytes: &[u8]| block[offset..offset + bytes.len()].copy_from_slice(bytes);
    if name.len() > 100 || prefix.len() > 155 {
        return Err(format!("file name too long for the archive: {prefix}/{name}"));
    }
    if size >= 0o777_7777_7777 {
        return Err(format!("{name}: file too large for the archive"));
    }
    let link = match &header.kind {
        EntryKind::Symlink(target) if target.len() > 100 => {
            return Err(format!("{name}: link target too long for the archive: {target}"));
        }
        EntryKind::Symlink(target) => target.as_str(),
        _ => "",
    };
    let id = |id: u32| if id > OCTAL_7 { 0 } else { id };
    put(0, name.as_bytes());
    put(100, format!("{:07o}\0", header.mode & OCTAL_7).as_bytes());
    put(108, format!("{:07o}\0", id(header.uid)).as_bytes());
    put(116, format!("{:07o}\0", id(header.gid)).as_bytes());
    put(124, format!("{size:011o}\0").as_bytes());
    put(136, format!("{:011o}\0", header.mod_time.clamp(0, 0o777_7777_7777)).as_bytes());
    put(148, b"        ");
    put(156, &[flag]);
    put(157, link.as_bytes());
    put(257, b"ustar\x0000");
    put(329, b"0000000\0");
    put(337, b"0000000\0");
    put(345, prefix.as_bytes());
    let checksum: u32 = block.iter().map(|&byte| u32::from(byte)).sum();
    block[148..156].copy_from_slice(format!("{checksum:06o}\0 ").as_bytes());
    Ok(block)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pax_records_count_their_own_length() {
        assert_eq!(pax_record("path", "ab"), "11 path=ab\n");
        let long = "x".repeat(95);
        let record = pax_record("path", &long);
        assert_eq!(record.len().to_string(), record.split(' ').next().unwrap());
    }

    #[test]
    fn headers_read_back_with_their_kind_mode_and_link() {
        let mut archive = Vec::new();
        let entries = [
            Header { name: "p", kind: EntryKind::Directory, mode: 0o755, size: 0, mod_time: 1, uid: 1000, gid: 1000 },
            Header::file("p/run.sh", 0o755, 3, 1),
            Header {
                name: "p/link",
                kind: EntryKind::Symlink("run.sh".into()),
                mode: 0o777,
                size: 0,
                mod_time: 1,
                uid: 0,
                gid: 0,
            },
        ];
        for header in &entries {
            archive.extend_from_slice(&header.blocks().unwrap());
            if header.size > 0 {
                archive.extend_from_slice(b"abc");
                archive.resize(archive.len() + padding(3), 0);
            }
        }
        archive.extend_from_slice(&END_OF_ARCHIVE);
        assert_eq!(&archive[100..108], b"0000755\0");
        assert_eq!(&archive[108..116], b"0001750\0");
        assert_eq!(archive[512 + 156], b'0');
        assert_eq!(&archive[1024 + 512 + 157..1024 + 512 + 163], b"run.sh");
        assert_eq!(archive.len(), 512 * 4 + 1024);
    }
}
