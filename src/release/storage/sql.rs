//! Helm's `sql` driver (`pkg/storage/driver/sql.go`): records in PostgreSQL, in Helm's tables, so Helm and
//! berth share one database. `releases_v1` holds one row per revision (key and namespace its primary key; the
//! record's text in `body`; `name`, `namespace`, `version`, `status`, `owner`, `createdAt`, `modifiedAt` as
//! columns, Helm's labels); `custom_labels_v1` holds the release's own labels. The schema is made by Helm's two
//! migrations, recorded as sql-migrate records them (`gorp_migrations`), so whichever tool comes first
//! creates it and the other finds it done.
//!
//! The connection string is `HELM_DRIVER_SQL_CONNECTION_STRING` (a `postgres://` URL or `key=value` pairs).
//! Helm's PostgreSQL client (lib/pq) encrypts unless told `sslmode=disable`; berth connects without TLS only,
//! so it takes only strings that say `sslmode=disable` rather than connect in the clear where Helm would not.
//! One connection serves a process (every clone of a [`SqlDatabase`]), made at the first request, with the
//! migrations; Helm connects when it starts.

use super::error::{DriverError, StorageError};
use super::layout::{Key, OWNER, SECRET_TYPE, Selector, Stamp, Write, own_labels};
use crate::release::codec::{check_read_size, decode};
use crate::release::record::Release;
use std::collections::{BTreeMap, HashMap};
use std::str::FromStr as _;
use std::sync::Arc;
use tokio_postgres::config::SslMode;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, Config, GenericClient, NoTls};

/// The `type` column (the Secret driver's type).
const RECORD_TYPE: &str = SECRET_TYPE;

/// What messages call a row.
const HOLDER: &str = "releases_v1 row";

/// Helm's migrations (`ensureDBSetup`), by id, in the order sql-migrate applies them (ids without a number
/// sort as text).
const MIGRATIONS: [(&str, &str); 2] = [
    (
        "custom_labels",
        "
            CREATE TABLE custom_labels_v1 (
                releaseKey VARCHAR(64),
                releaseNamespace VARCHAR(67),
                key VARCHAR(317),
                value VARCHAR(63)
            );
            CREATE INDEX ON custom_labels_v1 (releaseKey, releaseNamespace);

            GRANT ALL ON custom_labels_v1 TO PUBLIC;
            ALTER TABLE custom_labels_v1 ENABLE ROW LEVEL SECURITY;
        ",
    ),
    (
        "init",
        "
            CREATE TABLE releases_v1 (
                key VARCHAR(90),
                type VARCHAR(64) NOT NULL,
                body TEXT NOT NULL,
                name VARCHAR(64) NOT NULL,
                namespace VARCHAR(64) NOT NULL,
                version INTEGER NOT NULL,
                status TEXT NOT NULL,
                owner TEXT NOT NULL,
                createdAt INTEGER NOT NULL,
                modifiedAt INTEGER NOT NULL DEFAULT 0,
                PRIMARY KEY(key, namespace)
            );
            CREATE INDEX ON releases_v1 (key, namespace);
            CREATE INDEX ON releases_v1 (version);
            CREATE INDEX ON releases_v1 (status);
            CREATE INDEX ON releases_v1 (owner);
            CREATE INDEX ON releases_v1 (createdAt);
            CREATE INDEX ON releases_v1 (modifiedAt);

            GRANT ALL ON releases_v1 TO PUBLIC;

            ALTER TABLE releases_v1 ENABLE ROW LEVEL SECURITY;
        ",
    ),
];

/// sql-migrate's table of applied migrations, as gorp creates it for PostgreSQL.
const MIGRATIONS_TABLE: &str = r#"CREATE TABLE IF NOT EXISTS "gorp_migrations" ("id" text not null primary key, "applied_at" timestamp with time zone)"#;

/// A PostgreSQL database holding Helm's tables: the connection settings and the one connection (shared by
/// clones, made at the first request).
#[derive(Clone)]
pub struct SqlDatabase {
    inner: Arc<Database>,
}

struct Database {
    config: Config,
    client: tokio::sync::Mutex<Option<Client>>,
}

/// Never the connection string: it may hold a password.
impl std::fmt::Debug for SqlDatabase {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("SqlDatabase").finish_non_exhaustive()
    }
}

impl SqlDatabase {
    /// The database `connection_string` names (not connected yet).
    ///
    /// # Errors
    /// [`DriverError::SqlConnectionString`] for a string PostgreSQL's syntax refuses, [`DriverError::SqlTls`]
    /// for one that does not say `sslmode=disable`.
    pub fn new(connection_string: &str) -> Result<SqlDatabase, DriverError> {
        let config = Config::from_str(connection_string).map_err(DriverError::SqlConnectionString)?;
        // lib/pq reads a missing `sslmode` as `require` and refuses `prefer`: both mean TLS to Helm.
        if config.get_ssl_mode() != SslMode::Disable {
            return Err(DriverError::SqlTls);
        }
        Ok(SqlDatabase { inner: Arc::new(Database { config, client: tokio::sync::Mutex::new(None) }) })
    }
}

/// The driver over one database.
#[derive(Clone)]
pub(super) struct Sql {
    database: SqlDatabase,
}

/// A connection, locked for one request.
type Connection<'a> = tokio::sync::MappedMutexGuard<'a, Client>;

impl Sql {
    pub(super) fn new(database: &SqlDatabase) -> Sql {
        Sql { database: database.clone() }
    }

    /// The connection, made (and the schema migrated) if there is none or it was closed.
    async fn connection(&self) -> Result<Connection<'_>, StorageError> {
        let mut slot = self.database.inner.client.lock().await;
        let client = match slot.take() {
            Some(client) if !client.is_closed() => client,
            _ => {
                let (mut client, connection) =
                    self.database.inner.config.connect(NoTls).await.map_err(StorageError::SqlConnect)?;
                tokio::spawn(async move {
                    if let Err(error) = connection.await {
                        tracing::warn!(%error, "the connection to the SQL database ended");
                    }
                });
                migrate(&mut client).await?;
                client
            }
        };
        Ok(tokio::sync::MutexGuard::map(slot, |slot| slot.insert(client)))
    }

    /// The rows `selector` finds in `namespace` (every namespace when `None`), decoded, with their labels;
    /// those that hold no record are skipped with a warning, as Helm skips them.
    pub(super) async fn query(
        &self,
        namespace: Option<&str>,
        selector: &Selector<'_>,
        what: String,
    ) -> Result<Vec<Release>, StorageError> {
        let failed = |source| StorageError::Database { what: what.clone(), source };
        let labels = selector.labels();
        let mut conditions = Vec::new();
        let mut parameters: Vec<Box<dyn ToSql + Sync + Send>> = Vec::new();
        // The labels Helm queries by are columns of the same names (`version` an integer).
        for (label, value) in &labels {
            parameters.push(match (*label, value.parse::<i32>()) {
                ("version", Ok(version)) => Box::new(version),
                _ => Box::new(value.clone()),
            });
            conditions.push(format!("{label} = ${}", parameters.len()));
        }
        if let Some(namespace) = namespace {
            parameters.push(Box::new(namespace.to_string()));
            conditions.push(format!("namespace = ${}", parameters.len()));
        }
        let statement =
            format!("SELECT key, namespace, body, createdAt FROM releases_v1 WHERE {}", conditions.join(" AND "));
        let parameters: Vec<&(dyn ToSql + Sync)> =
            parameters.iter().map(|parameter| parameter.as_ref() as &(dyn ToSql + Sync)).collect();
        let connection = self.connection().await?;
        let rows = connection.query(&statement, &parameters).await.map_err(failed)?;
        let keys: Vec<String> = rows.iter().map(|row| row.get::<_, String>(0)).collect();
        let mut labels = custom_labels(&*connection, &keys, namespace).await.map_err(failed)?;
        let bodies: Vec<&str> = rows.iter().filter_map(|row| row.try_get::<_, &str>(2).ok()).collect();
        check_read_size(bodies).map_err(|source| StorageError::ReadTooLarge { what: what.clone(), source })?;
        let mut releases = Vec::with_capacity(rows.len());
        for row in &rows {
            let (key, namespace): (String, String) = (row.get(0), row.get(1));
            let own = labels.remove(&(key.clone(), namespace.clone())).unwrap_or_default();
            match release_from_row(key, &namespace, row.get(2), row.get(3), own) {
                Ok(release) => releases.push(release),
                Err(error) => tracing::warn!(%error, "skipping a release row that cannot be decoded"),
            }
        }
        Ok(releases)
    }

    pub(super) async fn get(&self, namespace: &str, key: Key<'_>) -> Result<Option<Release>, StorageError> {
        let what = format!("read release `{}` revision {} in namespace `{namespace}`", key.name, key.version);
        let failed = |source| StorageError::Database { what: what.clone(), source };
        let record_key = key.text();
        let connection = self.connection().await?;
        let statement = "SELECT body, createdAt FROM releases_v1 WHERE key = $1 AND namespace = $2";
        let Some(row) = connection.query_opt(statement, &[&record_key, &namespace]).await.map_err(failed)? else {
            return Ok(None);
        };
        let mut labels =
            custom_labels(&*connection, std::slice::from_ref(&record_key), Some(namespace)).await.map_err(failed)?;
        let own = labels.remove(&(record_key.clone(), namespace.to_string())).unwrap_or_default();
        release_from_row(record_key, namespace, row.get(0), row.get(1), own).map(Some)
    }

    /// The labels Helm's `Query` hands a revision from this driver: the release's own (Helm's are columns).
    pub(super) async fn labels(
        &self,
        namespace: &str,
        key: Key<'_>,
    ) -> Result<Option<BTreeMap<String, String>>, StorageError> {
        Ok(self.get(namespace, key).await?.map(|release| release.labels))
    }

    /// Inserts (Helm's `Create`: the row and its own labels, in one transaction) or updates (Helm's `Update`:
    /// the record and Helm's columns; the labels stay) the row of a revision, as `write.stamp` says.
    pub(super) async fn put(&self, namespace: &str, write: &Write<'_>) -> Result<(), StorageError> {
        let release = write.release;
        let (name, version, record_key) = (release.name.as_str(), release.version, Key::of(release).text());
        let status = release.info.status.to_string();
        let (stamp, at) = write.stamp.label();
        let at = i32::try_from(at).unwrap_or(i32::MAX);
        let row_version = i32::try_from(version).unwrap_or(i32::MAX);
        let mut connection = self.connection().await?;
        match write.stamp {
            Stamp::Created(_) => {
                let what = format!("create release `{name}` revision {version} in namespace `{namespace}`");
                let failed = |source| StorageError::Database { what: what.clone(), source };
                let transaction = connection.transaction().await.map_err(failed)?;
                let insert = format!(
                    "INSERT INTO releases_v1 (key, type, body, name, namespace, version, status, owner, {stamp}) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
                );
                let parameters: [&(dyn ToSql + Sync); 9] =
                    [&record_key, &RECORD_TYPE, &write.text, &name, &namespace, &row_version, &status, &OWNER, &at];
                if let Err(error) = transaction.execute(&insert, &parameters).await {
                    if error.code() == Some(&SqlState::UNIQUE_VIOLATION) {
                        return Err(StorageError::Exists { name: name.to_string(), version });
                    }
                    return Err(failed(error));
                }
                let insert_label = "INSERT INTO custom_labels_v1 (releaseKey, releaseNamespace, key, value) \
                                    VALUES ($1, $2, $3, $4)";
                for (label, value) in own_labels(&release.labels) {
                    transaction
                        .execute(insert_label, &[&record_key, &namespace, &label, &value])
                        .await
                        .map_err(failed)?;
                }
                transaction.commit().await.map_err(failed)
            }
            Stamp::Modified(_) => {
                let what = format!("update release `{name}` revision {version} in namespace `{namespace}`");
                let update = format!(
                    "UPDATE releases_v1 SET body = $1, name = $2, version = $3, status = $4, owner = $5, {stamp} = $6 \
                     WHERE key = $7 AND namespace = $8"
                );
                let parameters: [&(dyn ToSql + Sync); 8] =
                    [&write.text, &name, &row_version, &status, &OWNER, &at, &record_key, &namespace];
                let updated = connection
                    .execute(&update, &parameters)
                    .await
                    .map_err(|source| StorageError::Database { what, source })?;
                if updated == 0 {
                    return Err(StorageError::NotFound { name: name.to_string(), version });
                }
                Ok(())
            }
        }
    }

    /// Deletes the row of a revision and its labels; one that is not there is not an error.
    pub(super) async fn delete(&self, namespace: &str, key: Key<'_>) -> Result<(), StorageError> {
        let what = format!("delete release `{}` revision {} in namespace `{namespace}`", key.name, key.version);
        let failed = |source| StorageError::Database { what: what.clone(), source };
        let record_key = key.text();
        let mut connection = self.connection().await?;
        let transaction = connection.transaction().await.map_err(failed)?;
        transaction
            .execute("DELETE FROM releases_v1 WHERE key = $1 AND namespace = $2", &[&record_key, &namespace])
            .await
            .map_err(failed)?;
        transaction
            .execute(
                "DELETE FROM custom_labels_v1 WHERE releaseKey = $1 AND releaseNamespace = $2",
                &[&record_key, &namespace],
            )
            .await
            .map_err(failed)?;
        transaction.commit().await.map_err(failed)
    }
}

/// The own labels of the rows `keys` (in `namespace`, or any), by (key, namespace).
async fn custom_labels(
    client: &impl GenericClient,
    keys: &[String],
    namespace: Option<&str>,
) -> Result<HashMap<(String, String), BTreeMap<String, String>>, tokio_postgres::Error> {
    let mut labels: HashMap<(String, String), BTreeMap<String, String>> = HashMap::new();
    if keys.is_empty() {
        return Ok(labels);
    }
    let rows = match namespace {
        Some(namespace) => {
            let statement = "SELECT releaseKey, releaseNamespace, key, value FROM custom_labels_v1 \
                             WHERE releaseKey = ANY($1) AND releaseNamespace = $2";
            client.query(statement, &[&keys, &namespace]).await?
        }
        None => {
            let statement =
                "SELECT releaseKey, releaseNamespace, key, value FROM custom_labels_v1 WHERE releaseKey = ANY($1)";
            client.query(statement, &[&keys]).await?
        }
    };
    for row in rows {
        let release: (Option<String>, Option<String>) = (row.get(0), row.get(1));
        let (Some(release_key), Some(release_namespace)) = release else { continue };
        let (Some(label), Some(value)): (Option<String>, Option<String>) = (row.get(2), row.get(3)) else { continue };
        labels.entry((release_key, release_namespace)).or_default().insert(label, value);
    }
    Ok(labels)
}

/// A row's release: its record decoded, its own labels (Helm's filtered out, as `getReleaseCustomLabels`),
/// `createdAt` as [`Release::created_at`], the row's namespace when the record names none.
fn release_from_row(
    key: String,
    namespace: &str,
    body: String,
    created_at: i32,
    labels: BTreeMap<String, String>,
) -> Result<Release, StorageError> {
    let mut release = decode(&body).map_err(|source| StorageError::Decode { holder: HOLDER, key, source })?;
    release.labels = own_labels(&labels);
    release.created_at = jiff::Timestamp::from_second(i64::from(created_at)).ok();
    if release.namespace.is_empty() {
        release.namespace = namespace.to_string();
    }
    Ok(release)
}

/// Helm's `ensureDBSetup`: nothing when every migration is recorded (read without writing, as Helm's
/// `checkAlreadyApplied`); otherwise, in one transaction holding sql-migrate's table locked (two berth
/// processes do not migrate at once), each missing migration run and recorded as sql-migrate records it. A
/// migration berth does not know is refused, as sql-migrate refuses it.
async fn migrate(client: &mut Client) -> Result<(), StorageError> {
    let failed = |source| StorageError::Database { what: "set up Helm's tables".to_string(), source };
    let applied = match client.query(r#"SELECT "id" FROM "gorp_migrations""#, &[]).await {
        Ok(rows) => rows.iter().map(|row| row.get::<_, String>(0)).collect(),
        Err(error) if error.code() == Some(&SqlState::UNDEFINED_TABLE) => Vec::new(),
        Err(error) => return Err(failed(error)),
    };
    if MIGRATIONS.iter().all(|(id, _)| applied.iter().any(|applied| applied == id)) {
        return check_known(&applied);
    }
    let transaction = client.transaction().await.map_err(failed)?;
    transaction.batch_execute(MIGRATIONS_TABLE).await.map_err(failed)?;
    transaction.batch_execute(r#"LOCK TABLE "gorp_migrations" IN EXCLUSIVE MODE"#).await.map_err(failed)?;
    let rows = transaction.query(r#"SELECT "id" FROM "gorp_migrations""#, &[]).await.map_err(failed)?;
    let applied: Vec<String> = rows.iter().map(|row| row.get::<_, String>(0)).collect();
    check_known(&applied)?;
    for (id, up) in MIGRATIONS {
        if applied.iter().any(|applied| applied == id) {
            continue;
        }
        transaction.batch_execute(up).await.map_err(failed)?;
        transaction
            .execute(r#"INSERT INTO "gorp_migrations" ("id", "applied_at") VALUES ($1, now())"#, &[&id])
            .await
            .map_err(failed)?;
    }
    transaction.commit().await.map_err(failed)
}

/// sql-migrate's "unknown migration in database": a schema newer than Helm 4.1's.
fn check_known(applied: &[String]) -> Result<(), StorageError> {
    match applied.iter().find(|applied| MIGRATIONS.iter().all(|(id, _)| id != applied)) {
        Some(unknown) => Err(StorageError::SqlUnknownMigration { id: unknown.clone() }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_connection_strings_without_tls_are_taken() {
        for accepted in [
            "postgres://helm:secret@127.0.0.1:5432/helm?sslmode=disable",
            "host=/tmp/socket port=5432 user=helm dbname=helm sslmode=disable",
        ] {
            assert!(SqlDatabase::new(accepted).is_ok(), "{accepted}");
        }
        // No `sslmode` means TLS to lib/pq; berth has none.
        for refused in ["postgres://helm@db/helm", "host=db sslmode=require", "host=db sslmode=prefer"] {
            assert!(matches!(SqlDatabase::new(refused), Err(DriverError::SqlTls)), "{refused}");
        }
        assert!(matches!(SqlDatabase::new("host=db nonsense=1"), Err(DriverError::SqlConnectionString(_))));
    }

    #[test]
    fn the_connection_string_is_never_shown() {
        let database = SqlDatabase::new("postgres://helm:hunter2@db/helm?sslmode=disable").expect("taken");
        assert!(!format!("{database:?}").contains("hunter2"));
        let refused = DriverError::SqlTls.to_string();
        assert!(!refused.contains("db/helm"), "{refused}");
    }

    #[test]
    fn migrations_are_in_sql_migrates_order() {
        let ids: Vec<&str> = MIGRATIONS.iter().map(|(id, _)| *id).collect();
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        assert_eq!(ids, sorted, "ids without a number sort as text");
        assert_eq!(check_known(&["init".to_string()]).ok(), Some(()));
        assert!(matches!(
            check_known(&["init".to_string(), "2030_more".to_string()]),
            Err(StorageError::SqlUnknownMigration { id }) if id == "2030_more"
        ));
    }
}
