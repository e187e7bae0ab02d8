//! Where charts come from: Helm's chart repositories and OCI registries, read and written with Helm 4.1.4's own
//! configuration files and caches, so berth and Helm see each other's repositories and registry logins.
//!
//! Pure cores (no I/O): [`paths`] (Helm's locations), [`repo_file`] (`repositories.yaml`), [`index`] (index
//! files and version resolution), [`url_util`], [`redact`] (credentials out of shown text), [`server_text`]
//! (control characters out of it), [`oci::reference`], [`oci::auth`], [`oci::manifest`],
//! [`lock_digest`] (the `Chart.lock` digest), [`package::archive`] (a chart as a `.tgz`), [`tar_write`] (Go's tar headers). The rest talks to files
//! and the network: [`http`], [`repository`], [`oci::client`], [`oci::credentials`], [`content_cache`],
//! [`download`] (Helm's `LocateChart` and `helm pull`), [`dependency`] (`helm dependency update|build|list`).

pub mod content_cache;
pub mod dependency;
pub mod download;
pub mod error;
pub mod file_lock;
mod fs_util;
pub mod go_json;
pub mod http;
pub mod index;
pub mod lock_digest;
pub mod oci;
pub mod package;
pub mod paths;
pub mod redact;
pub mod repo_file;
pub mod repository;
pub mod server_text;
pub mod tar_write;
pub mod tls;
pub mod url_util;

pub use error::{ErrorKind, SourceError};
pub use fs_util::{write_atomic, write_atomic_in_place};

/// An I/O error's text as Go's `syscall.Errno` prints it (`no such file or directory`), without Rust's
/// `(os error 2)`.
pub fn io_text(error: &std::io::Error) -> String {
    let text = error.to_string();
    let text = match text.find(" (os error") {
        Some(at) => text[..at].to_string(),
        None => text,
    };
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().collect::<String>() + chars.as_str(),
        None => text,
    }
}
