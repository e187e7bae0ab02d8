//! Every stack berth sizes itself, in one place: the threads it starts and the stacks it maps for one call
//! (stacker), with who needs how much and why. A thread's stack, or a stack mapped for a call, is reserved
//! address space: only the pages used are committed, so a large one costs nothing until it is needed.
//!
//! | constant | size | used by | why |
//! |---|---|---|---|
//! | [`RUNTIME_THREAD`] | 16 MiB | the CLI's tokio threads (workers and blocking pool) | health rules are judged on the blocking threads: with this much they evaluate in place, where a 2 MiB thread maps [`CEL_EVALUATION`] for each batch; records are encoded there too (serde recurses per level of the values) |
//! | [`CHART_COMPRESSOR`] | 16 MiB | the thread compressing a record's chart while its templates render (`release::record_writer`) | it writes the chart's JSON, as the runtime's threads write records otherwise |
//! | [`DOCUMENT_READER`] | 16 MiB | the threads reading a rendered chart's large documents side by side (`release::chart`) | YAML is read recursively, as on the runtime's threads otherwise |
//! | [`PART_COMPRESSOR`] | 2 MiB | the threads gzipping the runs of one large record part side by side (`release::record_writer`) | gzip of bytes: no recursion, so Rust's default for new threads |
//! | [`YAML_PARSE`] | 64 MiB | mapped for each YAML parse (`manifest`) | serde-saphyr and serde recurse once or more per level, and a debug build needs more than 2 MiB for `MAX_YAML_DEPTH` levels |
//! | [`CEL_PARSE`] | 64 MiB | mapped for each CEL rule's parse (`health::cel`) | the parser's recursion on `MAX_EXPRESSION_BYTES` of `1+1+...` (a debug build passes with 8 MiB, overflows with 4 MiB) |
//! | [`CEL_EVALUATION`] | 8 MiB | mapped for a batch of judgements on a thread with less left (`health::cel`) | twice what a debug build needs for `MAX_NESTING` levels of the interpreter over objects `MAX_DEPTH` deep (passes with 4 MiB, crashes with 2 MiB) |
//!
//! berth-chart sizes the stacks of its own threads (the renderer's `RENDER_STACK_SIZE`, 64 MiB; the reader of
//! rendered heads, 16 MiB; the schema validator, 256 MiB) in its own modules: a lower crate, it cannot read
//! these.

const MIB: usize = 1024 * 1024;

/// The CLI's async runtime threads, workers and blocking pool.
pub const RUNTIME_THREAD: usize = 16 * MIB;

/// The thread compressing a record's chart while the templates render.
pub const CHART_COMPRESSOR: usize = 16 * MIB;

/// A thread reading a rendered chart's large documents.
pub const DOCUMENT_READER: usize = 16 * MIB;

/// A thread gzipping one run of a large record part (Rust's default for new threads).
pub const PART_COMPRESSOR: usize = 2 * MIB;

/// The stack one YAML parse runs on.
pub const YAML_PARSE: usize = 64 * MIB;

/// The stack one CEL rule is parsed on.
pub const CEL_PARSE: usize = 64 * MIB;

/// The stack a batch of CEL judgements runs on when its thread has less left.
pub const CEL_EVALUATION: usize = 8 * MIB;
