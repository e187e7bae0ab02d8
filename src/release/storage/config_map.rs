//! Helm's `configmap` driver (`pkg/storage/driver/cfgmaps.go`): a record in a ConfigMap, with no type, whose
//! `data.release` is the record's text itself (the same base64 of gzipped JSON a Secret holds, stored as a
//! string rather than as bytes).

use super::objects::{DATA_KEY, RecordObject};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::ObjectMeta;
use std::collections::BTreeMap;

impl RecordObject for ConfigMap {
    const KIND: &'static str = "ConfigMap";

    fn holding(metadata: ObjectMeta, text: &str) -> ConfigMap {
        ConfigMap {
            metadata,
            data: Some(BTreeMap::from([(DATA_KEY.to_string(), text.to_string())])),
            ..ConfigMap::default()
        }
    }

    fn record_text(&self) -> Result<&str, &'static str> {
        self.data.as_ref().and_then(|data| data.get(DATA_KEY)).map(String::as_str).ok_or("no `data.release`")
    }
}
