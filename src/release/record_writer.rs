//! Writing release records fast: the one module that knows a record is written in parts.
//!
//! One operation writes its revision several times: pending, before each hook (with the hook's last run), and
//! at the end. Between those writes only the release's `info` and its hooks change; the chart, the user's values
//! and the manifest, nearly all of the bytes (5 MB of JSON for argo-cd), stay the same. A [`RecordWriter`]
//! writes the gzip text (`codec.rs`) as a series of members (RFC 1952: a gzip file is a series of members;
//! Go's `gzip.Reader`, which Helm's `decodeRelease` uses, reads them as one stream, as does
//! [`super::decode`]): the JSON before the chart; the chart; the values and manifest (each above 1 MiB in one
//! member per core, compressed side by side); and the JSON after them. It compresses the chart, or the values
//! and manifest, again only when they changed.
//!
//! It also starts the two large parts before the first write, on cores that would idle otherwise (measured
//! in docs/BENCHMARKS.md, "A public chart end to end: argo-cd"): the chart once the templates have rendered,
//! from the renderer's hook ([`RecordWriter::compress_chart_ahead`], joined where the rendering ends,
//! [`RecordWriter::wait_for_chart`]), and the values and manifest while the operation's checks wait on the
//! cluster ([`RecordWriter::compress_body_ahead`], taken by the first write, [`RecordWriter::ready`]). The
//! storage that owns the writer, the rendering that calls the hook and the operation that records know only
//! these verbs.

use super::codec::{RecordError, gzip, text};
use super::record::{Chart, Release};
use berth_chart::side_by_side;
use flate2::Compression;
use serde_json::{Map, Value};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The gzip level of a record (see [`RecordWriter::encode`]).
const LEVEL: Compression = Compression::new(3);

/// Above this many bytes of encoded text, a record is compressed again at gzip's best level: a Secret holds at
/// most 1 MiB of data, and the best level is what lets Helm fit its largest releases.
const BEST_COMPRESSION_ABOVE: usize = 900 * 1024;

/// The text Helm stores in a Secret's `data.release`, written with no earlier write to reuse (a fresh
/// `RecordWriter`: four gzip members, level 3, the best level near a Secret's size limit).
///
/// # Errors
/// [`RecordError::WriteJson`] or [`RecordError::Compress`].
pub fn encode(release: &Release) -> Result<String, RecordError> {
    RecordWriter::default().encode(release)
}

/// Writes release records, keeping the compressed chart, and the compressed values and manifest, of the last
/// record it wrote to reuse while they stay the same. One writer serves the writes of one storage (and so of
/// one operation).
#[derive(Debug, Default)]
pub struct RecordWriter {
    parts: Mutex<Parts>,
    /// Parts being compressed ahead of the first write.
    ahead: Mutex<Ahead>,
}

/// The middle members of the last record written.
#[derive(Debug, Default)]
struct Parts {
    chart: Option<Compressed<Chart>>,
    body: Option<Compressed<Body>>,
}

/// Parts started before the first write, each on a thread of its own.
#[derive(Debug, Default)]
struct Ahead {
    chart: Option<std::thread::JoinHandle<Option<Compressed<Chart>>>>,
    body: Option<tokio::task::JoinHandle<Option<Compressed<Body>>>>,
}

/// What follows the chart in a record's JSON: the user's values and the manifest.
#[derive(Debug)]
struct Body {
    config: Map<String, Value>,
    manifest: String,
}

impl Body {
    /// Whether these are `release`'s values and manifest (equal values write equal JSON).
    fn is_of(&self, release: &Release) -> bool {
        self.manifest == release.manifest && self.config == release.config
    }
}

/// A part of a record's JSON, compressed: what it holds, the level and the gzip member(s).
#[derive(Debug)]
struct Compressed<T> {
    holds: T,
    level: Compression,
    member: Vec<u8>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl RecordWriter {
    /// Starts compressing `chart`, the record's chart, on a thread of its own. Called from the renderer's hook
    /// once the templates have rendered, while their output is read: the renderer and the reader of a large file
    /// take both cores before, and both lie on the way to the first write, so it starts no earlier.
    pub fn compress_chart_ahead(&self, chart: Chart) {
        let started = std::thread::Builder::new()
            .name("berth-record".to_string())
            .stack_size(crate::stacks::CHART_COMPRESSOR)
            .spawn(move || compress_chart(&chart, LEVEL, gzip).ok());
        // A thread that cannot start leaves the chart to the first write.
        if let Ok(started) = started {
            lock(&self.ahead).chart = Some(started);
        }
    }

    /// Waits for the chart [`Self::on_chart`] started, and keeps it for the first write. It blocks: call it
    /// where the rendering ran, off the async workers.
    pub fn wait_for_chart(&self) {
        let thread = lock(&self.ahead).chart.take();
        if let Some(thread) = thread
            && let Ok(Some(chart)) = thread.join()
        {
            let mut parts = lock(&self.parts);
            if parts.chart.is_none() {
                parts.chart = Some(chart);
            }
        }
    }

    /// Whether the chart kept for the next write is `chart`.
    #[cfg(test)]
    pub(crate) fn holds_chart(&self, chart: &Chart) -> bool {
        lock(&self.parts).chart.as_ref().is_some_and(|part| part.holds == *chart)
    }

    /// Starts compressing the values and manifest of a revision about to be written, on a blocking thread of
    /// the runtime (the other core is left to the release's checks); the first write takes them
    /// ([`Self::ready`]). Outside a runtime, the first write compresses them itself.
    pub fn compress_body_ahead(&self, config: &Map<String, Value>, manifest: &str) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let body = Body { config: config.clone(), manifest: manifest.to_string() };
        lock(&self.ahead).body = Some(runtime.spawn_blocking(move || compress_body(body).ok()));
    }

    /// Takes the values and manifest [`Self::compress_body_ahead`] started, once they are done: awaited before a
    /// write encodes.
    pub async fn ready(&self) {
        let body = lock(&self.ahead).body.take();
        if let Some(body) = body
            && let Ok(Some(body)) = body.await
        {
            let mut parts = lock(&self.parts);
            if parts.body.is_none() {
                parts.body = Some(body);
            }
        }
    }

    /// The text Helm stores in a Secret's `data.release`: standard base64 of the gzipped JSON of the release.
    ///
    /// Helm always compresses at the best level (9); berth at level 3, falling back to the best level only for
    /// records that would come near a Secret's size limit. For a large chart compression is most of a write's
    /// cost: argo-cd's 5 MB record took 38.6 ms at level 6 for 396 KB, 20.7 ms at level 3 for 415 KB, and the
    /// best level 3.5 times as long as level 6 for a text 3 % smaller (docs/BENCHMARKS.md). Any gzip level reads
    /// the same (Helm's `decodeRelease` included). The chart, and the values and manifest, are written as JSON
    /// and compressed only when they differ from the last record's.
    ///
    /// # Errors
    /// [`RecordError::WriteJson`] or [`RecordError::Compress`] (neither happens for a `Release` in memory in
    /// practice: its values cannot hold non-finite numbers).
    pub fn encode(&self, release: &Release) -> Result<String, RecordError> {
        let Some(Outer { head, tail }) = outer_parts(release)? else {
            return whole(&serde_json::to_vec(release).map_err(RecordError::WriteJson)?);
        };
        let mut parts = lock(&self.parts);
        // A record that needed the best level before starts there.
        let best_before =
            parts.body.as_ref().is_some_and(|part| part.holds.is_of(release) && part.level == Compression::best());
        let mut level = if best_before { Compression::best() } else { LEVEL };
        loop {
            if !parts.chart.as_ref().is_some_and(|part| part.level == level && part.holds == release.chart) {
                parts.chart = Some(compress_chart(&release.chart, level, gzip_parallel)?);
            }
            if !parts.body.as_ref().is_some_and(|part| part.level == level && part.holds.is_of(release)) {
                let body = Body { config: release.config.clone(), manifest: release.manifest.clone() };
                let member = gzip_parallel(&body_json(&body)?, level)?;
                parts.body = Some(Compressed { holds: body, level, member });
            }
            let chart = parts.chart.as_ref().map_or(&[][..], |part| part.member.as_slice());
            let values_and_manifest = parts.body.as_ref().map_or(&[][..], |part| part.member.as_slice());
            let mut bytes = gzip(&head, level)?;
            bytes.extend_from_slice(chart);
            bytes.extend_from_slice(values_and_manifest);
            bytes.extend_from_slice(&gzip(&tail, level)?);
            let text = text(&bytes);
            if text.len() <= BEST_COMPRESSION_ABOVE || level == Compression::best() {
                return Ok(text);
            }
            level = Compression::best();
        }
    }
}

/// `"chart":{…}` as serde writes it in a release, compressed with `compress`.
fn compress_chart(
    chart: &Chart,
    level: Compression,
    compress: fn(&[u8], Compression) -> Result<Vec<u8>, RecordError>,
) -> Result<Compressed<Chart>, RecordError> {
    let mut json = CHART_KEY.to_vec();
    serde_json::to_writer(&mut json, chart).map_err(RecordError::WriteJson)?;
    Ok(Compressed { holds: chart.clone(), level, member: compress(&json, level)? })
}

/// The values and manifest as a record holds them, compressed on the calling thread alone (it is meant for a
/// core left idle).
fn compress_body(body: Body) -> Result<Compressed<Body>, RecordError> {
    let member = gzip(&body_json(&body)?, LEVEL)?;
    Ok(Compressed { holds: body, level: LEVEL, member })
}

/// `,"config":{…},"manifest":"…"` as serde writes them after a release's chart (each left out when empty, as
/// [`Release`] skips them).
fn body_json(body: &Body) -> Result<Vec<u8>, RecordError> {
    let mut json = Vec::new();
    if !body.config.is_empty() {
        json.extend_from_slice(b",\"config\":");
        serde_json::to_writer(&mut json, &body.config).map_err(RecordError::WriteJson)?;
    }
    if !body.manifest.is_empty() {
        json.extend_from_slice(b",\"manifest\":");
        serde_json::to_writer(&mut json, &body.manifest).map_err(RecordError::WriteJson)?;
    }
    Ok(json)
}

/// A record as one gzip member, at [`LEVEL`] or, near a Secret's limit, the best.
fn whole(json: &[u8]) -> Result<String, RecordError> {
    let encoded = text(&gzip(json, LEVEL)?);
    if encoded.len() <= BEST_COMPRESSION_ABOVE {
        return Ok(encoded);
    }
    Ok(text(&gzip(json, Compression::best())?))
}

/// The JSON of `release` before its chart (the name and info) and after its manifest (the hooks and the rest),
/// written without the chart, values and manifest: the field order and omissions are serde's own. `None` when
/// the JSON does not have that shape (then a record is one member).
fn outer_parts(release: &Release) -> Result<Option<Outer>, RecordError> {
    let write = |release: &Release| serde_json::to_vec(release).map_err(RecordError::WriteJson);
    let empty_chart = serde_json::to_vec(&Chart::default()).map_err(RecordError::WriteJson)?;
    // `{"name":…,"info":{…},"chart":{…}}`: everything before the chart.
    let head_only = write(&Release { name: release.name.clone(), info: release.info.clone(), ..Release::default() })?;
    let chart_end = [CHART_KEY, &empty_chart, b"}"].concat();
    let Some(head_len) = head_only.len().checked_sub(chart_end.len()).filter(|_| head_only.ends_with(&chart_end))
    else {
        return Ok(None);
    };
    // The same with the hooks, version, namespace and unmodelled fields: everything after the manifest.
    let light = write(&Release {
        name: release.name.clone(),
        info: release.info.clone(),
        chart: Chart::default(),
        config: Map::new(),
        manifest: String::new(),
        hooks: release.hooks.clone(),
        version: release.version,
        namespace: release.namespace.clone(),
        apply_method: release.apply_method.clone(),
        extra: release.extra.clone(),
        ..Release::default()
    })?;
    let tail = light.get(head_len + chart_end.len() - 1..).unwrap_or_default();
    Ok(Some(Outer { head: head_only[..head_len].to_vec(), tail: tail.to_vec() }))
}

/// A release's JSON around its chart, values and manifest.
struct Outer {
    /// The JSON before them.
    head: Vec<u8>,
    /// The JSON after them.
    tail: Vec<u8>,
}

/// Where a release's chart starts in its JSON.
const CHART_KEY: &[u8] = b"\"chart\":";

/// Below this many bytes a text is compressed on the calling thread.
const PARALLEL_ABOVE: usize = 1024 * 1024;

/// `bytes` as gzip members compressed side by side, one per core, for large texts.
fn gzip_parallel(bytes: &[u8], level: Compression) -> Result<Vec<u8>, RecordError> {
    let threads = side_by_side::threads();
    if bytes.len() < PARALLEL_ABOVE || threads < 2 {
        return gzip(bytes, level);
    }
    let runs: Vec<&[u8]> = bytes.chunks(bytes.len().div_ceil(threads)).collect();
    let members = side_by_side::map_in_order(&runs, crate::stacks::PART_COMPRESSOR, |run| gzip(run, level));
    let mut joined = Vec::new();
    for member in members {
        joined.extend_from_slice(&member?);
    }
    Ok(joined)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::codec::{GZIP_MAGIC, decode};
    use crate::release::record::{ChartFile, ChartMetadata, HelmTime, Hook, Info, ReleaseStatus};
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;
    use proptest::prelude::*;
    use serde_json::{Value, json};
    use std::io::Read as _;

    /// The JSON of a record and the number of gzip members it was written as.
    fn gunzip(text: &str) -> (Vec<u8>, usize) {
        let bytes = STANDARD.decode(text).expect("base64");
        let (mut rest, mut json, mut members) = (bytes.as_slice(), Vec::new(), 0);
        while !rest.is_empty() {
            assert!(rest.starts_with(&GZIP_MAGIC), "a gzip member");
            let mut member = flate2::bufread::GzDecoder::new(rest);
            member.read_to_end(&mut json).expect("gunzip");
            rest = member.into_inner();
            members += 1;
        }
        (json, members)
    }

    /// A release with something in every field the encoder splits around.
    fn full_release() -> Release {
        let mut extra = Map::new();
        extra.insert("future_field".to_string(), json!({"chart": {"kept": true}}));
        Release {
            name: "web".to_string(),
            info: Info {
                first_deployed: Some(HelmTime::now()),
                description: "Initial install underway".to_string(),
                status: ReleaseStatus::PendingInstall,
                notes: "\"chart\": in the notes".to_string(),
                ..Info::default()
            },
            chart: Chart {
                metadata: ChartMetadata { name: "web".to_string(), version: "1.0.0".to_string(), ..Default::default() },
                templates: vec![ChartFile {
                    name: "templates/a.yaml".to_string(),
                    data: b"kind: A".to_vec(),
                    ..Default::default()
                }],
                values: json!({"replicas": 1}).as_object().cloned(),
                ..Chart::default()
            },
            config: json!({"replicas": 2}).as_object().cloned().unwrap_or_default(),
            manifest: "---\nkind: ConfigMap\n".repeat(50),
            hooks: vec![Hook { name: "setup".to_string(), kind: "Job".to_string(), ..Hook::default() }],
            version: 4,
            namespace: "apps".to_string(),
            apply_method: "ssa".to_string(),
            extra,
            ..Release::default()
        }
    }

    #[test]
    fn a_record_is_four_members_that_read_as_serdes_json() {
        for release in [full_release(), Release::default(), Release { name: "bare".to_string(), ..Release::default() }]
        {
            let text = RecordWriter::default().encode(&release).expect("encodes");
            let (json, members) = gunzip(&text);
            assert_eq!(json, serde_json::to_vec(&release).expect("json"), "the same bytes as one member");
            assert_eq!(members, 4, "head, chart, values and manifest, tail");
            assert_eq!(decode(&text).expect("decodes"), release);
        }
    }

    #[test]
    fn the_middle_member_is_reused_while_the_chart_values_and_manifest_stay() {
        let encoder = RecordWriter::default();
        let mut release = full_release();
        let first = encoder.encode(&release).expect("encodes");
        release.info.status = ReleaseStatus::Deployed;
        release.info.description = "Install complete".to_string();
        release.hooks[0].last_run.phase = "Succeeded".to_string();
        let second = encoder.encode(&release).expect("encodes");
        assert_ne!(first, second);
        assert_eq!(decode(&second).expect("decodes"), release, "what changed is written");
        assert_eq!(
            gunzip(&second).0,
            serde_json::to_vec(&release).expect("json"),
            "serde's bytes, without writing them"
        );
        let parts = lock(&encoder.parts);
        let member = parts.body.as_ref().map(|body| body.member.clone()).expect("cached");
        drop(parts);
        let bytes = STANDARD.decode(&second).expect("base64");
        assert!(bytes.windows(member.len()).any(|window| window == member), "the cached member is in the record");
        // A new manifest is compressed again, not taken from the cache.
        release.manifest.push_str("---\nkind: Secret\n");
        let third = encoder.encode(&release).expect("encodes");
        assert_eq!(decode(&third).expect("decodes"), release);
        assert_eq!(encoder.encode(&release).expect("encodes"), third, "the same release, the same text");
        // So are new values.
        release.config.insert("replicas".to_string(), json!(3));
        let fourth = encoder.encode(&release).expect("encodes");
        assert_eq!(gunzip(&fourth).0, serde_json::to_vec(&release).expect("json"));
    }

    #[test]
    fn a_chart_compressed_ahead_is_the_records_chart_member() {
        let release = full_release();
        let encoder = RecordWriter::default();
        encoder.compress_chart_ahead(release.chart.clone());
        encoder.wait_for_chart();
        let member = lock(&encoder.parts).chart.as_ref().map(|chart| chart.member.clone()).expect("compressed ahead");
        let text = encoder.encode(&release).expect("encodes");
        assert_eq!(gunzip(&text).0, serde_json::to_vec(&release).expect("json"));
        let bytes = STANDARD.decode(&text).expect("base64");
        assert!(bytes.windows(member.len()).any(|window| window == member), "the chart compressed ahead is used");
        // For another chart, it is not.
        let other = Release { chart: Chart::default(), ..full_release() };
        let encoder = RecordWriter::default();
        encoder.compress_chart_ahead(release.chart.clone());
        encoder.wait_for_chart();
        let text = encoder.encode(&other).expect("encodes");
        assert_eq!(gunzip(&text).0, serde_json::to_vec(&other).expect("json"));
    }

    #[tokio::test]
    async fn values_and_manifest_compressed_ahead_are_the_records_member() {
        let release = full_release();
        let encoder = RecordWriter::default();
        encoder.compress_body_ahead(&release.config, &release.manifest);
        encoder.ready().await;
        let member = lock(&encoder.parts).body.as_ref().map(|body| body.member.clone()).expect("compressed ahead");
        let text = encoder.encode(&release).expect("encodes");
        assert_eq!(gunzip(&text).0, serde_json::to_vec(&release).expect("json"));
        let bytes = STANDARD.decode(&text).expect("base64");
        assert!(bytes.windows(member.len()).any(|window| window == member), "the member compressed ahead is used");
        // For another manifest, it is not.
        let other = Release { manifest: "---\nkind: Other\n".to_string(), ..full_release() };
        let encoder = RecordWriter::default();
        encoder.compress_body_ahead(&release.config, &release.manifest);
        encoder.ready().await;
        let text = encoder.encode(&other).expect("encodes");
        assert_eq!(gunzip(&text).0, serde_json::to_vec(&other).expect("json"));
    }

    #[test]
    fn records_near_a_secrets_limit_are_compressed_at_the_best_level() {
        // Hex digits from a linear congruential generator compress to about half: 1.6 MB of them is over the
        // threshold at any level, a few kilobytes far below it.
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut noise = |len: usize| -> String {
            (0..len)
                .map(|_| {
                    state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                    char::from(b"0123456789abcdef"[(state >> 60) as usize])
                })
                .collect()
        };
        for (len, level) in [(4_000, LEVEL), (1_600_000, Compression::best())] {
            let release = Release { name: "big".to_string(), manifest: noise(len), ..Release::default() };
            let encoder = RecordWriter::default();
            let text = encoder.encode(&release).expect("encodes");
            let (json, members) = gunzip(&text);
            assert_eq!(json, serde_json::to_vec(&release).expect("json"));
            let cores = side_by_side::threads();
            let expected = if len > PARALLEL_ABOVE && cores > 1 { 3 + cores } else { 4 };
            assert_eq!(members, expected, "{len} bytes: head, chart, the manifest in one member per core, tail");
            assert_eq!(encoder.encode(&release).expect("encodes"), text, "written again the same");
            let parts = lock(&encoder.parts);
            assert_eq!(parts.body.as_ref().map(|body| body.level), Some(level), "{len} bytes");
            assert_eq!(parts.chart.as_ref().map(|chart| chart.level), Some(level), "{len} bytes");
        }
    }

    proptest! {
        #[test]
        fn any_name_notes_and_manifest_round_trip(name in ".{0,20}", notes in ".{0,40}", manifest in ".{0,200}") {
            let release = Release {
                name,
                info: Info { notes, ..Info::default() },
                manifest,
                ..full_release()
            };
            let text = RecordWriter::default().encode(&release).expect("encodes");
            prop_assert_eq!(gunzip(&text).0, serde_json::to_vec(&release).expect("json"));
            let _: Value = serde_json::from_slice(&gunzip(&text).0).expect("JSON");
        }
    }
}
