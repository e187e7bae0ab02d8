//! Property tests: whatever a user types after `--set` (and its siblings) and whatever bytes arrive as a chart
//! archive, berth-chart answers with a value or an error, never a panic, and in bounded time.

// Test code states its expectations with unwrap, expect and panic: a failed one is the failure reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable)]

use std::io::{Read, Write};

use berth_chart::values::strvals::{Mode, parse};
use berth_go::Value;
use proptest::prelude::*;

/// Set lines made mostly of the characters the parser treats specially.
fn set_line() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            4 => proptest::sample::select(vec!['[', ']', '{', '}', '.', ',', '=', '\\', '"', ':', ' ', '-', '+']),
            3 => proptest::sample::select(vec!['a', 'b', 'k', '0', '1', '9', 'x', 'é']),
        ],
        0..120,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

/// An archive of a small chart, as a base for mutations.
fn sample_archive() -> Vec<u8> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/charts/packaged/pk-2.0.0.tgz");
    std::fs::read(path).expect("the packaged probe chart")
}

fn gunzip(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(data).read_to_end(&mut out).expect("valid gzip");
    out
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(data).expect("in-memory write");
    encoder.finish().expect("in-memory write")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn set_lines_never_panic(line in set_line()) {
        let mut reader = |path: &str| -> Result<Value, String> { Ok(Value::from(path)) };
        for mode in [
            Mode::Typed { string: false },
            Mode::Typed { string: true },
            Mode::Json,
            Mode::Literal,
            Mode::File(&mut reader),
        ] {
            let (value, _result) = parse(&line, mode);
            prop_assert!(matches!(value, Value::Map(_)));
        }
    }

    #[test]
    fn random_bytes_are_refused_not_panicked_on(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let _ = berth_chart::load::load_archive(&bytes);
        let _ = berth_chart::load::load_archive(&gzip(&bytes));
    }

    #[test]
    fn mutated_chart_archives_never_panic(
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..24),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut tar = gunzip(&sample_archive());
        for (at, byte) in flips {
            let i = at.index(tar.len());
            tar[i] = byte;
        }
        let _ = berth_chart::load::load_archive(&gzip(&tar));
        let truncated = cut.index(tar.len());
        let _ = berth_chart::load::load_archive(&gzip(&tar[..truncated]));
    }
}

/// A gzip bomb: 32 MiB of zeros (tens of KiB compressed) behind a header claiming an 8 GiB file. It must be
/// refused from the header, not inflated.
#[test]
fn a_decompression_bomb_is_refused() {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let mut header = [0u8; 512];
    header[..12].copy_from_slice(b"bomb/big.txt");
    header[100..107].copy_from_slice(b"0000644");
    header[124..135].copy_from_slice(b"77777777777"); // 8 GiB
    header[156] = b'0';
    header[257..263].copy_from_slice(b"ustar\0");
    header[263..265].copy_from_slice(b"00");
    header[148..156].copy_from_slice(b"        ");
    let sum: u32 = header.iter().map(|b| u32::from(*b)).sum();
    header[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
    encoder.write_all(&header).unwrap();
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..32 {
        encoder.write_all(&zeros).unwrap();
    }
    let bomb = encoder.finish().unwrap();
    let started = std::time::Instant::now();
    let error = berth_chart::load::load_archive(&bomb).unwrap_err();
    assert_eq!(
        error.message(),
        "unable to load chart archive: decompressed chart is larger than the maximum size 104857600"
    );
    // Refused at the header: what was inflated is one block, not the bomb.
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
}

/// Many empty entries: each costs no file budget in Helm; berth's entry bound ends them.
#[test]
fn endless_empty_entries_are_bounded() {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let mut block = [0u8; 512];
    block[257..263].copy_from_slice(b"ustar\0");
    block[263..265].copy_from_slice(b"00");
    block[156] = b'0';
    block[100..107].copy_from_slice(b"0000644");
    block[124..135].copy_from_slice(b"00000000000");
    for i in 0..=berth_chart::load::MAX_ARCHIVE_ENTRIES as u32 {
        let name = format!("c/f{i}");
        block[..100].fill(0);
        block[..name.len()].copy_from_slice(name.as_bytes());
        block[148..156].copy_from_slice(b"        ");
        let sum: u32 = block.iter().map(|b| u32::from(*b)).sum();
        block[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
        encoder.write_all(&block).unwrap();
    }
    let archive = encoder.finish().unwrap();
    let error = berth_chart::load::load_archive(&archive).unwrap_err();
    assert_eq!(error.message(), "unable to load chart archive: chart archive has more than 50000 entries");
}

/// Archive entries keep their modification times (Helm records them in a release's chart).
#[test]
fn archive_files_keep_their_times() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/charts/load-errors/c/pax.tgz");
    let loaded = berth_chart::load::load_archive(&std::fs::read(path).unwrap()).unwrap();
    let chart = loaded.chart;
    // make_archives.py writes every entry with mtime 1700000000.
    assert_eq!(chart.mod_time.map(|t| t.seconds), Some(1_700_000_000));
    assert!(chart.raw.iter().all(|f| f.mod_time.map(|t| t.seconds) == Some(1_700_000_000)));
}
