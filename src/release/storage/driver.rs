//! The storage driver setting: which of Helm's drivers keeps the release records, named as Helm 4 names it in
//! `HELM_DRIVER` (`Configuration.Init` in `pkg/action/action.go`): `secret`, `secrets` or nothing for
//! Secrets, `configmap` or `configmaps`, `memory`, `sql`; any other text (`Secret` too: Helm compares
//! exactly) is refused with Helm's `unknown driver "NAME"`. The variables are read with Helm's other settings
//! (`crate::settings::HelmEnvironment::storage_driver`).

use super::error::DriverError;
use super::memory::MemoryStore;
use super::sql::SqlDatabase;

/// The variable naming the driver.
pub const HELM_DRIVER: &str = "HELM_DRIVER";
/// The variable holding the `sql` driver's connection string.
pub const HELM_DRIVER_SQL_CONNECTION_STRING: &str = "HELM_DRIVER_SQL_CONNECTION_STRING";
/// The variable naming the YAML files Helm's command line preloads into the `memory` driver.
pub const HELM_MEMORY_DRIVER_DATA: &str = "HELM_MEMORY_DRIVER_DATA";

/// Which driver keeps the records; `Memory` and `Sql` carry the store they share between every storage opened
/// with this setting (clones share it too).
#[derive(Debug, Clone, Default)]
pub enum StorageDriver {
    /// Helm's default: one Secret per revision.
    #[default]
    Secret,
    /// One ConfigMap per revision.
    ConfigMap,
    /// This process's memory.
    Memory(MemoryStore),
    /// A PostgreSQL database.
    Sql(SqlDatabase),
}

impl StorageDriver {
    /// The driver `name` names, as Helm's `Configuration.Init` reads `HELM_DRIVER`; `sql_connection_string` is
    /// the `sql` driver's (`HELM_DRIVER_SQL_CONNECTION_STRING`). A `memory` driver starts empty.
    ///
    /// # Errors
    /// [`DriverError::Unknown`] with Helm's message, or the `sql` driver's [`SqlDatabase::new`] errors.
    pub fn from_name(name: &str, sql_connection_string: &str) -> Result<StorageDriver, DriverError> {
        match name {
            "secret" | "secrets" | "" => Ok(StorageDriver::Secret),
            "configmap" | "configmaps" => Ok(StorageDriver::ConfigMap),
            "memory" => Ok(StorageDriver::Memory(MemoryStore::new())),
            "sql" => Ok(StorageDriver::Sql(SqlDatabase::new(sql_connection_string)?)),
            other => Err(DriverError::Unknown { name: other.to_string() }),
        }
    }

    /// The driver's name as `HELM_DRIVER` spells it.
    pub fn name(&self) -> &'static str {
        match self {
            StorageDriver::Secret => "secret",
            StorageDriver::ConfigMap => "configmap",
            StorageDriver::Memory(_) => "memory",
            StorageDriver::Sql(_) => "sql",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_names_are_read_as_helm_reads_them() {
        let cases = [
            ("", "secret"),
            ("secret", "secret"),
            ("secrets", "secret"),
            ("configmap", "configmap"),
            ("configmaps", "configmap"),
            ("memory", "memory"),
        ];
        for (name, driver) in cases {
            assert_eq!(StorageDriver::from_name(name, "").map(|driver| driver.name()).ok(), Some(driver), "{name}");
        }
        assert_eq!(
            StorageDriver::from_name("sql", "host=db sslmode=disable").map(|driver| driver.name()).ok(),
            Some("sql")
        );
        for (name, message) in [
            ("bogus", r#"unknown driver "bogus""#),
            ("Secret", r#"unknown driver "Secret""#),
            (" secret", r#"unknown driver " secret""#),
            ("cfg\u{7}map", r#"unknown driver "cfg\amap""#),
        ] {
            let error = StorageDriver::from_name(name, "").map(|driver| driver.name());
            assert_eq!(error.map_err(|error| error.to_string()), Err(message.to_string()), "{name:?}");
        }
    }
}
