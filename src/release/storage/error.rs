//! Why a storage request or a storage driver setting cannot be served: the errors every driver shares, so a
//! caller handles a revision that exists, or is missing, alike whichever driver keeps it.

use crate::release::codec::RecordError;

/// Why a storage operation could not be done.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    /// The API server refused or could not be reached (after retries).
    #[error("cannot {what}")]
    Request {
        what: String,
        /// The step of Helm's driver the request served, and the kind that holds the records.
        step: Box<DriverStep>,
        holder: &'static str,
        #[source]
        source: kube::Error,
    },
    /// The SQL database refused or could not be reached.
    #[error("cannot {what}")]
    Database {
        what: String,
        #[source]
        source: tokio_postgres::Error,
    },
    /// The SQL database could not be connected to (Helm's words when `NewSQL` fails).
    #[error("unable to instantiate SQL driver")]
    SqlConnect(#[source] tokio_postgres::Error),
    /// The database records a migration of Helm's tables that Helm 4.1 does not have (sql-migrate's "unknown
    /// migration in database"): its schema is newer than berth knows.
    #[error("unable to instantiate SQL driver: the database records migration `{id}`, unknown to Helm 4.1's tables")]
    SqlUnknownMigration { id: String },
    /// A stored record (a Secret, a ConfigMap, a row) holds no record text.
    #[error("{holder} `{key}` holds no release: {problem}")]
    NoRecord { holder: &'static str, key: String, problem: &'static str },
    /// A stored record holds something that is not a release record.
    #[error("cannot decode the release in {holder} `{key}`")]
    Decode {
        holder: &'static str,
        key: String,
        #[source]
        source: RecordError,
    },
    /// The records one read finds decode to more than berth holds at once ([`crate::release::MAX_READ_BYTES`]).
    #[error("cannot {what}")]
    ReadTooLarge {
        what: String,
        #[source]
        source: RecordError,
    },
    /// The record writer could not write the record.
    #[error("cannot encode release `{name}`")]
    Encode {
        name: String,
        #[source]
        source: RecordError,
    },
    /// `create` found the revision already stored (HTTP 409, a duplicate key).
    #[error("release `{name}` revision {version} already exists")]
    Exists { name: String, version: u32 },
    /// `update` found no record of the revision.
    #[error("release `{name}` revision {version} does not exist")]
    NotFound { name: String, version: u32 },
    /// The name cannot be a label value, so no selector could find the release.
    #[error(
        "`{name}` is not a valid release name: at most 63 characters, letters, digits, `-`, `_` or `.`, starting and ending with a letter or digit"
    )]
    InvalidName { name: String },
    /// A storage reading all namespaces was asked to write.
    #[error("cannot {what}: a storage over all namespaces is read-only")]
    AllNamespaces { what: String },
    /// The storage driver setting is not one berth can use.
    #[error(transparent)]
    Driver(#[from] DriverError),
}

/// The step of Helm's drivers over Kubernetes objects (pkg/storage/driver/secrets.go, cfgmaps.go) a request
/// served: Helm's words for its failure depend on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DriverStep {
    /// `Get` of the revision's object (its name: `sh.helm.release.v1.NAME.vN`).
    Get(String),
    /// `List`: every release (`helm list`).
    List,
    /// `Query` by labels: the revisions of the release named.
    Query(String),
    Create,
    Update,
    Delete,
}

impl StorageError {
    /// Helm's words for a request of its drivers that failed: the Secret driver puts its step before the
    /// server's message (`query: failed to query with labels: secrets is forbidden: ...`); the ConfigMap driver
    /// returns the message as it is (it logs the step). `None` for the other errors.
    pub fn helm_words(&self) -> Option<String> {
        let StorageError::Request { step, holder, source, .. } = self else { return None };
        // Go's `StatusError.Error()` is the Status's message alone.
        let cause = match source {
            kube::Error::Api(status) => status.message.clone(),
            other => other.to_string(),
        };
        if *holder != <k8s_openapi::api::core::v1::Secret as k8s_openapi::Resource>::KIND {
            return Some(cause);
        }
        let step = match step.as_ref() {
            DriverStep::Get(key) => format!("get: failed to get {}: ", berth_go::strconv::quote(key)),
            DriverStep::List => "list: failed to list: ".to_string(),
            DriverStep::Query(_) => "query: failed to query with labels: ".to_string(),
            DriverStep::Create => "create: failed to create: ".to_string(),
            DriverStep::Update => "update: failed to update: ".to_string(),
            DriverStep::Delete => String::new(),
        };
        Some(format!("{step}{cause}"))
    }

    /// The release whose revisions a failed request asked for (Helm's `Query`).
    pub fn queried_release(&self) -> Option<&str> {
        match self {
            StorageError::Request { step, .. } => match step.as_ref() {
                DriverStep::Query(name) => Some(name),
                _ => None,
            },
            _ => None,
        }
    }
}

/// Why a driver setting cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    /// Helm's message, word for word.
    #[error("unknown driver {}", berth_go::strconv::quote(.name))]
    Unknown { name: String },
    /// Helm's command line reads its memory driver's releases from `HELM_MEMORY_DRIVER_DATA` and cannot start
    /// without it.
    #[error(
        "HELM_DRIVER=memory starts from the releases in the YAML files HELM_MEMORY_DRIVER_DATA names, and it is \
         empty; name a file (an empty one for no release), as Helm requires"
    )]
    MemoryDataUnset,
    #[error("cannot read the memory driver's data `{path}` (HELM_MEMORY_DRIVER_DATA)")]
    MemoryData {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the memory driver's data `{path}` (HELM_MEMORY_DRIVER_DATA) is not a YAML list of releases")]
    MemoryDataInvalid {
        path: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    #[error(
        "the memory driver's data `{path}` (HELM_MEMORY_DRIVER_DATA) holds release `{name}` revision {version} twice"
    )]
    MemoryDataDuplicate { path: String, name: String, version: u32 },
    /// The connection string is not PostgreSQL's syntax (it is not shown: it may hold a password).
    #[error(
        "unable to instantiate SQL driver: HELM_DRIVER_SQL_CONNECTION_STRING is not a PostgreSQL connection string"
    )]
    SqlConnectionString(#[source] tokio_postgres::Error),
    /// berth has no TLS for PostgreSQL, and Helm would use TLS (lib/pq's default is `sslmode=require`).
    #[error(
        "unable to instantiate SQL driver: berth connects to PostgreSQL without TLS only, and \
         HELM_DRIVER_SQL_CONNECTION_STRING does not say `sslmode=disable` (Helm's client encrypts without it); \
         add `sslmode=disable` for a database reached over a trusted network, or keep the records in Secrets \
         (HELM_DRIVER=secret)"
    )]
    SqlTls,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forbidden(step: DriverStep, holder: &'static str) -> StorageError {
        let mut status = kube::core::Status::failure(
            "secrets is forbidden: User \"bob\" cannot list resource \"secrets\"",
            "Forbidden",
        );
        status.code = 403;
        StorageError::Request {
            what: "list releases".into(),
            step: Box::new(step),
            holder,
            source: kube::Error::Api(status.boxed()),
        }
    }

    #[test]
    fn a_refused_request_is_worded_as_helms_driver_words_it() {
        let message = "secrets is forbidden: User \"bob\" cannot list resource \"secrets\"";
        let table = [
            (DriverStep::List, "Secret", format!("list: failed to list: {message}")),
            (DriverStep::Query("web".into()), "Secret", format!("query: failed to query with labels: {message}")),
            (
                DriverStep::Get("sh.helm.release.v1.web.v1".into()),
                "Secret",
                format!("get: failed to get \"sh.helm.release.v1.web.v1\": {message}"),
            ),
            (DriverStep::Create, "Secret", format!("create: failed to create: {message}")),
            (DriverStep::Update, "Secret", format!("update: failed to update: {message}")),
            (DriverStep::Delete, "Secret", message.to_string()),
            // The ConfigMap driver logs its step and returns the server's error as it is.
            (DriverStep::Query("web".into()), "ConfigMap", message.to_string()),
        ];
        for (step, holder, expected) in table {
            assert_eq!(forbidden(step.clone(), holder).helm_words(), Some(expected), "{step:?} {holder}");
        }
        let other = StorageError::Exists { name: "web".into(), version: 1 };
        assert_eq!(other.helm_words(), None);
    }
}
