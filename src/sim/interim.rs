//! Interim stand-ins for the patch and protobuf modules while they are written; removed once they land.

pub mod patch {
    use serde_json::Value;

    #[derive(Debug, Clone, PartialEq, thiserror::Error)]
    pub enum PatchError {
        #[error("{0}")]
        BadRequest(String),
        #[error("{0}")]
        Invalid(String),
        #[error("{message}")]
        Conflict { message: String, conflicts: Vec<(String, String)> },
    }

    pub fn merge_patch(target: &Value, patch: &Value) -> Value {
        let mut target = target.clone();
        json_patch::merge(&mut target, patch);
        target
    }

    pub fn json_patch(target: &Value, patch: &Value) -> Result<Value, PatchError> {
        let patch: json_patch::Patch =
            serde_json::from_value(patch.clone()).map_err(|error| PatchError::BadRequest(error.to_string()))?;
        let mut target = target.clone();
        json_patch::patch(&mut target, &patch).map_err(|error| PatchError::Invalid(error.to_string()))?;
        Ok(target)
    }

    pub fn strategic_merge_patch(target: &Value, patch: &Value) -> Result<Value, PatchError> {
        Ok(merge_patch(target, patch))
    }

    pub mod managed {
        use super::PatchError;
        use serde_json::Value;

        pub fn apply(
            live: Option<&Value>,
            applied: &Value,
            _manager: &str,
            _force: bool,
            _api_version: &str,
            _now: &str,
        ) -> Result<Value, PatchError> {
            Ok(match live {
                Some(live) => super::merge_patch(live, applied),
                None => applied.clone(),
            })
        }

        pub fn record_update(
            _old: Option<&Value>,
            _new: &mut Value,
            _manager: &str,
            _api_version: &str,
            _now: &str,
            _subresource: Option<&str>,
        ) {
        }
    }
}

pub mod protobuf {
    use serde_json::Value;

    pub const CONTENT_TYPE: &str = "application/vnd.kubernetes.protobuf";

    pub fn decode(_body: &[u8]) -> Result<Value, String> {
        Err("protobuf bodies are not decoded yet".to_string())
    }

    pub fn encode(_object: &Value) -> Result<Vec<u8>, String> {
        Err("protobuf bodies are not encoded yet".to_string())
    }
}
