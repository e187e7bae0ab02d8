//! The text a release record is stored as (`encodeRelease`/`decodeRelease` in Helm's
//! `pkg/storage/driver/util.go`): standard base64 of the gzipped JSON of the release. Reading it is here;
//! writing it fast, as gzip members compressed ahead and reused, is `record_writer.rs`'s.

use super::record::Release;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use flate2::Compression;
use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use std::io::{Read as _, Write as _};

/// The first bytes of a gzip stream (`magicGzip` in Helm's `util.go`).
pub(super) const GZIP_MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];

/// Bytes a release record may decompress to: 128 MiB. A Secret holds at most 1 MiB, but gzip expands a planted
/// one a thousandfold (and the SQL driver has no size limit); a real record is a few MiB of JSON at most, its
/// chart's files included. Helm reads any size.
pub const MAX_RECORD_BYTES: u64 = 128 * 1024 * 1024;

/// Bytes of release JSON the records of one read (a history, a list, a status) may decompress to in all:
/// 256 MiB. Each record is bounded by [`MAX_RECORD_BYTES`], but records planted in a namespace (each a Secret
/// under 1 MiB, a thousandfold once decompressed) would otherwise all be held at once. A real namespace's
/// records are tens of MiB. Helm reads any amount.
pub const MAX_READ_BYTES: u64 = 256 * 1024 * 1024;

/// Why a release record cannot be written or read; each variant names the layer and keeps its cause.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("cannot write the release as JSON")]
    WriteJson(#[source] serde_json::Error),
    #[error("cannot compress the release")]
    Compress(#[source] std::io::Error),
    #[error("invalid base64")]
    Base64(#[source] base64::DecodeError),
    #[error("invalid gzip")]
    Gzip(#[source] std::io::Error),
    #[error("the release record decompresses to more than {} MiB (berth's limit)", MAX_RECORD_BYTES >> 20)]
    TooLarge,
    #[error(
        "the release records read together decompress to more than {} MiB (berth's limit on one read)",
        MAX_READ_BYTES >> 20
    )]
    ReadTooLarge,
    #[error("invalid release JSON")]
    Json(#[source] serde_json::Error),
}

/// `bytes` as one gzip member at `level`.
pub(super) fn gzip(bytes: &[u8], level: Compression) -> Result<Vec<u8>, RecordError> {
    let mut gzip = GzEncoder::new(Vec::with_capacity(bytes.len() / 8 + 32), level);
    gzip.write_all(bytes).map_err(RecordError::Compress)?;
    gzip.finish().map_err(RecordError::Compress)
}

/// The text of gzip `bytes` in a Secret's `data.release`.
pub(super) fn text(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

/// Refuses a read whose records' `texts` decompress to more than [`MAX_READ_BYTES`] in all, before any is
/// decoded: each is decompressed into nothing and counted (gzip is fast; it is the JSON that costs, and holding
/// it), so a namespace of planted records is refused in a second, holding one compressed record at a time. A
/// text that cannot be read counts for nothing here: decoding it fails, and the read skips it.
///
/// # Errors
/// [`RecordError::ReadTooLarge`].
pub fn check_read_size<'a>(texts: impl IntoIterator<Item = &'a str>) -> Result<(), RecordError> {
    let mut total: u64 = 0;
    for text in texts {
        total = total.saturating_add(decompressed_len(text));
        if total > MAX_READ_BYTES {
            return Err(RecordError::ReadTooLarge);
        }
    }
    Ok(())
}

/// What the record `text` decompresses to (at most one past [`MAX_RECORD_BYTES`]); 0 when it is not a record.
fn decompressed_len(text: &str) -> u64 {
    let base64: Vec<u8> = text.bytes().filter(|byte| *byte != b'\n' && *byte != b'\r').collect();
    let Ok(bytes) = STANDARD.decode(base64) else { return 0 };
    if !(bytes.len() > GZIP_MAGIC.len() && bytes.starts_with(&GZIP_MAGIC)) {
        return bytes.len() as u64;
    }
    std::io::copy(&mut MultiGzDecoder::new(bytes.as_slice()).take(MAX_RECORD_BYTES + 1), &mut std::io::sink())
        .unwrap_or(0)
}

/// Reads the text of a Secret's `data.release` back into a release. As Helm's `decodeRelease`, a payload
/// that does not start with the gzip magic bytes is read as plain JSON (records from before compression), and
/// a gzip text of several members is read as their concatenation.
/// Line breaks in the base64 are skipped, as Go's decoder does.
///
/// # Errors
/// A [`RecordError`] naming the layer that failed: base64, gzip or JSON.
pub fn decode(text: &str) -> Result<Release, RecordError> {
    let base64: Vec<u8> = text.bytes().filter(|byte| *byte != b'\n' && *byte != b'\r').collect();
    let bytes = STANDARD.decode(base64).map_err(RecordError::Base64)?;
    let json = if bytes.len() > GZIP_MAGIC.len() && bytes.starts_with(&GZIP_MAGIC) {
        let mut json = Vec::new();
        MultiGzDecoder::new(bytes.as_slice())
            .take(MAX_RECORD_BYTES + 1)
            .read_to_end(&mut json)
            .map_err(RecordError::Gzip)?;
        if json.len() as u64 > MAX_RECORD_BYTES {
            return Err(RecordError::TooLarge);
        }
        json
    } else {
        bytes
    };
    serde_json::from_slice(&json).map_err(RecordError::Json)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_read_gzipped_in_any_number_of_members_or_as_plain_json() {
        let release = Release { name: "web".to_string(), version: 3, ..Release::default() };
        let json = serde_json::to_vec(&release).expect("json");
        let (head, tail) = json.split_at(json.len() / 2);
        let mut members = gzip(head, Compression::fast()).expect("gzip");
        members.extend(gzip(tail, Compression::best()).expect("gzip"));
        assert_eq!(decode(&text(&members)).expect("two members"), release);
        let wrapped: String =
            text(&members).as_bytes().chunks(76).map(|line| format!("{}\n", String::from_utf8_lossy(line))).collect();
        assert_eq!(decode(&wrapped).expect("line breaks skipped"), release);
        assert_eq!(decode(&text(&json)).expect("plain JSON"), release);
        assert!(matches!(decode("not base64!"), Err(RecordError::Base64(_))));
        assert!(matches!(decode(&text(&[0x1f, 0x8b, 0x08, 0, 1])), Err(RecordError::Gzip(_))));
    }

    #[test]
    fn a_record_that_decompresses_past_the_bound_is_refused_without_holding_it() {
        // 129 MiB of spaces gzip to about 130 KiB: a Secret well under kube-apiserver's 1 MiB.
        let mut gzip = GzEncoder::new(Vec::new(), Compression::best());
        let spaces = vec![b' '; 1 << 20];
        for _ in 0..129 {
            gzip.write_all(&spaces).expect("compresses");
        }
        let planted = text(&gzip.finish().expect("compresses"));
        assert!(planted.len() < 1 << 20, "{} bytes", planted.len());
        let error = decode(&planted).expect_err("too large");
        assert!(matches!(error, RecordError::TooLarge), "{error:?}");
        assert_eq!(error.to_string(), "the release record decompresses to more than 128 MiB (berth's limit)");
    }
}
