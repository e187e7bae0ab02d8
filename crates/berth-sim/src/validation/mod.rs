//! Validation as kube-apiserver's registry strategies do it, with the real server's messages: what a write
//! must satisfy before it is stored (names per kind, metadata, the rules of single kinds), and what is refused
//! while the body is decoded (fields of the wrong type, bytes that are not base64).
//!
//! [`validate`] runs in the store on every create and update (patches and server-side apply included), after
//! defaulting, a custom resource against its CRD's schema, list types and CEL rules too; [`validate_status`] on a custom resource's status
//! writes; [`decode::check`] runs in the HTTP layer on request bodies, whose
//! path (decode or apply) decides the message.

pub mod decode;
pub mod enums;
pub(crate) mod go_json;
pub mod immutable;
pub mod kinds;
pub mod metadata;
pub mod names;

use crate::api_error::ApiError;
use crate::field_error::{ErrorType, FieldError};
use crate::registry::ResourceDef;
use crate::schema;
use serde_json::Value;

/// Every validation error of a create (`old` None) or an update of `new`, in the order the real server lists
/// them: name, then metadata, then the kind's own rules (what an update may not change before or after the
/// new object's own rules, as the kind's update validation orders them).
pub fn errors(def: &ResourceDef, old: Option<&Value>, new: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if old.is_none() {
        errors.extend(names::name_errors(names::rule_for(&def.group, &def.kind), new));
    }
    if let Some(metadata) = new.get("metadata").and_then(Value::as_object) {
        metadata::metadata_errors(metadata, &mut errors);
    }
    if !def.custom {
        let (group, kind) = (def.group.as_str(), def.kind.as_str());
        let update = |before_spec| old.map(|old| immutable::update_errors(group, kind, old, new, before_spec));
        errors.extend(update(true).into_iter().flatten());
        errors.extend(kinds::kind_errors(group, kind, old, new));
        errors.extend(enums::enum_errors(group, kind, old, new));
        errors.extend(update(false).into_iter().flatten());
    }
    if let Some(schema) = def.crd.as_ref().and_then(|crd| crd.schema()) {
        errors.extend(schema::validate::validate(schema, new, old));
        errors.extend(list_type_errors(schema, old, new));
        rule_errors(schema, old, new, &mut errors);
    }
    errors
}

/// The blocking errors (`hasBlockingErr`): a value of the wrong type, missing, too long, too many, or not one
/// of an enum's; the rules would see values their schema does not describe.
const BLOCKING: &[ErrorType] =
    &[ErrorType::NotSupported, ErrorType::Required, ErrorType::TooLong, ErrorType::TooMany, ErrorType::TypeInvalid];

/// The `x-kubernetes-validations` rules' errors, after the schema's: not run when an error so far blocks them,
/// which the server says instead.
fn rule_errors(schema: &schema::Structural, old: Option<&Value>, new: &Value, errors: &mut Vec<FieldError>) {
    if !schema.has_rules {
        return;
    }
    if errors.iter().any(|error| BLOCKING.contains(&error.error_type)) {
        errors.push(FieldError::invalid_raw(
            "<nil>",
            "\"null\"",
            "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
        ));
        return;
    }
    errors.extend(schema::rules::evaluate::errors(schema, new, old));
}

/// The duplicates in `set` and `map` lists, of a create or (ratcheted) an update.
fn list_type_errors(schema: &schema::Structural, old: Option<&Value>, new: &Value) -> Vec<FieldError> {
    match old {
        Some(old) => schema::list_type::update_errors(schema, old, new),
        None => schema::list_type::errors(schema, new),
    }
}

/// Refuses an invalid write of a custom resource's status subresource with a 422: its metadata, then its
/// status against the schema's status part (apiextensions-apiserver's `ValidateStatusUpdate`; the spec is the
/// stored one, unchanged, and not validated again).
///
/// # Errors
/// [`ApiError`] 422 `Kind.group "name" is invalid: status...`.
pub fn validate_status(def: &ResourceDef, old: Option<&Value>, new: &Value) -> Result<(), ApiError> {
    let mut errors = Vec::new();
    if let Some(metadata) = new.get("metadata").and_then(Value::as_object) {
        metadata::metadata_errors(metadata, &mut errors);
    }
    if let Some(schema) = def.crd.as_ref().and_then(|crd| crd.schema()) {
        errors.extend(schema::validate::validate_status(schema, new, old));
        errors.extend(list_type_errors(schema, old, new));
        // The whole object's rules, ratcheted: the unchanged spec's rules do not fail.
        rule_errors(schema, old, new, &mut errors);
    }
    refuse(def, new, &errors)
}

/// Refuses an invalid create or update with a 422 listing every error.
///
/// # Errors
/// [`ApiError`] 422 `Kind.group "name" is invalid: ...`.
pub fn validate(def: &ResourceDef, old: Option<&Value>, new: &Value) -> Result<(), ApiError> {
    refuse(def, new, &errors(def, old, new))
}

fn refuse(def: &ResourceDef, new: &Value, errors: &[FieldError]) -> Result<(), ApiError> {
    if errors.is_empty() {
        return Ok(());
    }
    let name = new.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
    Err(ApiError::invalid_fields(&def.group, &def.kind, name, errors))
}
