//! Helm's default driver, `secret` (`pkg/storage/driver/secrets.go`): a record in a Secret of type
//! `helm.sh/release.v1`, whose `data.release` holds the record's text (so the API server's JSON holds it
//! base64-encoded once more, as every Secret's data).

use super::layout::SECRET_TYPE;
use super::objects::{DATA_KEY, RecordObject};
use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;
use kube::api::ObjectMeta;
use std::collections::BTreeMap;

impl RecordObject for Secret {
    const KIND: &'static str = "Secret";

    fn holding(metadata: ObjectMeta, text: &str) -> Secret {
        Secret {
            metadata,
            type_: Some(SECRET_TYPE.to_string()),
            data: Some(BTreeMap::from([(DATA_KEY.to_string(), ByteString(text.as_bytes().to_vec()))])),
            ..Secret::default()
        }
    }

    fn record_text(&self) -> Result<&str, &'static str> {
        let data = self.data.as_ref().and_then(|data| data.get(DATA_KEY)).ok_or("no `data.release`")?;
        std::str::from_utf8(&data.0).map_err(|_| "`data.release` is not UTF-8 text")
    }
}
