#!/usr/bin/env python3
"""Generate src/sim/protobuf/schema/generated.rs from the Go API types of one Kubernetes release.

The Go struct tags are the one source that carries both sides of the mapping: the JSON name with `omitempty`, the
Go pointer-ness (which decides whether a zero value is still written to JSON) and the protobuf field number.

Usage (each argument is a checkout of the named module at the same release):
    python3 scripts/gen-protobuf-schema.py <k8s.io/api dir> <k8s.io/apimachinery dir> > src/sim/protobuf/schema/generated.rs
    cargo fmt --all

Only the `types.go` file of each package is read (see PACKAGES); a type the script cannot place stops it with a
message rather than producing a table that would silently drop a field. ROOTS below must list the kinds
registered in `kinds.rs` (a missing one fails to compile there). The output was checked field by field against
the release's `generated.proto` files (numbers, names, cardinality, types).
"""

import re
import sys

API_VERSION = "v0.36.3"

# Go package path -> (checkout, file inside it, static name prefix, OpenAPI-style prefix for messages)
PACKAGES = {
    "k8s.io/api/core/v1": ("api", "core/v1/types.go", "CORE_V1", "io.k8s.api.core.v1"),
    "k8s.io/api/apps/v1": ("api", "apps/v1/types.go", "APPS_V1", "io.k8s.api.apps.v1"),
    "k8s.io/api/batch/v1": ("api", "batch/v1/types.go", "BATCH_V1", "io.k8s.api.batch.v1"),
    "k8s.io/api/rbac/v1": ("api", "rbac/v1/types.go", "RBAC_V1", "io.k8s.api.rbac.v1"),
    "k8s.io/api/authentication/v1": ("api", "authentication/v1/types.go", "AUTHENTICATION_V1", "io.k8s.api.authentication.v1"),
    "k8s.io/api/authorization/v1": ("api", "authorization/v1/types.go", "AUTHORIZATION_V1", "io.k8s.api.authorization.v1"),
    "k8s.io/apimachinery/pkg/apis/meta/v1": (
        "apimachinery",
        "pkg/apis/meta/v1/types.go",
        "META_V1",
        "io.k8s.apimachinery.pkg.apis.meta.v1",
    ),
}

# Types whose JSON form is not their protobuf message shape; the Rust side converts them by hand.
SPECIAL = {
    ("k8s.io/apimachinery/pkg/apis/meta/v1", "Time"): "Time",
    ("k8s.io/apimachinery/pkg/apis/meta/v1", "MicroTime"): "MicroTime",
    ("k8s.io/apimachinery/pkg/apis/meta/v1", "Duration"): "Duration",
    ("k8s.io/apimachinery/pkg/apis/meta/v1", "FieldsV1"): "RawJson",
    ("k8s.io/apimachinery/pkg/runtime", "RawExtension"): "RawJson",
    ("k8s.io/apimachinery/pkg/api/resource", "Quantity"): "Quantity",
    ("k8s.io/apimachinery/pkg/util/intstr", "IntOrString"): "IntOrString",
    ("k8s.io/apimachinery/pkg/types", "UID"): "String",
    ("k8s.io/apimachinery/pkg/types", "NodeName"): "String",
    # `type ExtraValue []string`: a message `{repeated string items = 1}` on the wire, a bare array in JSON.
    ("k8s.io/api/authentication/v1", "ExtraValue"): "StringList",
    ("k8s.io/api/authorization/v1", "ExtraValue"): "StringList",
}

# Kinds that are Go structs: `omitempty` never omits a struct, so a present value is always written to JSON.
STRUCT_KINDS = {"Kind::Time", "Kind::MicroTime", "Kind::Duration", "Kind::Quantity", "Kind::IntOrString", "Kind::RawJson"}

SCALARS = {
    "string": "String",
    "bool": "Bool",
    "int32": "Int32",
    "int64": "Int64",
    "int": "Int64",
    "float64": "Double",
    "[]byte": "Bytes",
}

ROOTS = [
    ("k8s.io/api/core/v1", n)
    for n in [
        "Secret",
        "SecretList",
        "ConfigMap",
        "ConfigMapList",
        "Namespace",
        "NamespaceList",
        "Service",
        "ServiceList",
        "ServiceAccount",
        "ServiceAccountList",
        "Pod",
        "PodList",
        "Event",
        "EventList",
        "PersistentVolumeClaim",
        "PersistentVolumeClaimList",
        "ReplicationController",
        "ReplicationControllerList",
    ]
] + [
    ("k8s.io/api/apps/v1", n)
    for n in [
        "Deployment",
        "DeploymentList",
        "StatefulSet",
        "StatefulSetList",
        "DaemonSet",
        "DaemonSetList",
        "ReplicaSet",
        "ReplicaSetList",
    ]
] + [
    ("k8s.io/api/batch/v1", n) for n in ["Job", "JobList", "CronJob", "CronJobList"]
] + [
    ("k8s.io/api/rbac/v1", n)
    for n in [
        "Role",
        "RoleList",
        "ClusterRole",
        "ClusterRoleList",
        "RoleBinding",
        "RoleBindingList",
        "ClusterRoleBinding",
        "ClusterRoleBindingList",
    ]
] + [
    ("k8s.io/api/authentication/v1", n) for n in ["TokenRequest", "TokenReview", "SelfSubjectReview"]
] + [
    ("k8s.io/api/authorization/v1", n)
    for n in ["SubjectAccessReview", "SelfSubjectAccessReview", "LocalSubjectAccessReview", "SelfSubjectRulesReview"]
] + [
    ("k8s.io/apimachinery/pkg/apis/meta/v1", n) for n in ["DeleteOptions", "Status"]
]


def strip_comments(text):
    return "\n".join(re.sub(r"^\s*//.*$", "", line) for line in text.splitlines())


def parse_package(text):
    """Returns (imports alias->path, structs name->[field lines], aliases name->type)."""
    text = strip_comments(text)
    imports = {}
    block = re.search(r"^import \((.*?)^\)", text, re.S | re.M)
    if block:
        for line in block.group(1).splitlines():
            m = re.match(r'\s*(?:(\w+)\s+)?"([^"]+)"', line)
            if m:
                path = m.group(2)
                imports[m.group(1) or path.rsplit("/", 1)[-1]] = path
    structs = {}
    for m in re.finditer(r"^type (\w+) struct \{\n(.*?)^\}", text, re.S | re.M):
        structs[m.group(1)] = [line for line in m.group(2).splitlines() if "`" in line]
    aliases = {}
    for m in re.finditer(r"^type (\w+) =? ?([\w\.\[\]\*]+)\s*$", text, re.M):
        if m.group(2) != "struct":
            aliases[m.group(1)] = m.group(2)
    return imports, structs, aliases


def parse_tag(tag, key):
    m = re.search(key + r':"([^"]*)"', tag)
    return m.group(1) if m else None


class Generator:
    def __init__(self, roots_dirs):
        self.packages = {}
        for path, (root, file, prefix, openapi) in PACKAGES.items():
            with open(f"{roots_dirs[root]}/{file}") as handle:
                self.packages[path] = parse_package(handle.read())
        self.messages = {}  # (pkg, name) -> list of field tuples
        self.order = []

    def static_name(self, key):
        pkg, name = key
        snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).upper()
        return f"{PACKAGES[pkg][2]}_{snake}"

    def resolve(self, pkg, go_type):
        """Returns ('list'|'map'|'single', pointer, kind) where kind is a Rust Kind expression."""
        pointer = go_type.startswith("*")
        go_type = go_type.lstrip("*")
        if go_type == "[]byte":
            return ("single", pointer, "Kind::Bytes")
        if go_type.startswith("[]"):
            shape, _, kind = self.resolve(pkg, go_type[2:])
            if shape != "single":
                raise SystemExit(f"nested collection {go_type} in {pkg}")
            return ("list", pointer, kind)
        m = re.match(r"map\[([\w\.]+)\](.+)$", go_type)
        if m:
            key_shape, _, key_kind = self.resolve(pkg, m.group(1))
            if key_kind != "Kind::String":
                raise SystemExit(f"map key {m.group(1)} is not a string in {pkg}")
            shape, _, kind = self.resolve(pkg, m.group(2))
            if shape != "single":
                raise SystemExit(f"map of collections {go_type} in {pkg}")
            return ("map", pointer, kind)
        if go_type in SCALARS:
            return ("single", pointer, f"Kind::{SCALARS[go_type]}")
        if "." in go_type:
            alias, name = go_type.split(".")
            target = self.packages[pkg][0].get(alias)
            if target is None:
                raise SystemExit(f"unknown import {alias} in {pkg}")
        else:
            target, name = pkg, go_type
        if (target, name) in SPECIAL:
            return ("single", pointer, f"Kind::{SPECIAL[(target, name)]}")
        if target not in self.packages:
            raise SystemExit(f"type {go_type} from unsupported package {target}")
        imports, structs, aliases = self.packages[target]
        if name in structs:
            self.visit((target, name))
            return ("single", pointer, f"Kind::Message(&{self.static_name((target, name))})")
        if name in aliases:
            shape, inner_pointer, kind = self.resolve(target, aliases[name])
            return (shape, pointer or inner_pointer, kind)
        raise SystemExit(f"unknown type {go_type} in {pkg}")

    def visit(self, key):
        if key in self.messages:
            return
        self.messages[key] = None
        pkg, name = key
        fields = []
        for line in self.packages[pkg][1][name]:
            m = re.match(r"^\s*(?:(\w+)\s+)?([^\s`]+)\s+`([^`]*)`\s*$", line)
            if not m:
                raise SystemExit(f"cannot parse field line in {name}: {line!r}")
            go_type, tag = m.group(2), m.group(3)
            proto = parse_tag(tag, "protobuf")
            json_tag = parse_tag(tag, "json")
            if proto is None or json_tag is None or json_tag == "-":
                if proto is not None and "FieldsV1" not in name:
                    raise SystemExit(f"protobuf field without JSON name in {name}: {line!r}")
                continue
            parts = proto.split(",")
            number = int(parts[1])
            json_parts = json_tag.split(",")
            json_name = json_parts[0]
            omit_empty = "omitempty" in json_parts[1:] or "omitzero" in json_parts[1:]
            shape, pointer, kind = self.resolve(pkg, go_type)
            if (parts[2] == "rep") != (shape in ("list", "map")):
                print(f"note: tag cardinality disagrees with Go type (Go type wins) in {name}: {line.strip()}", file=sys.stderr)
            if json_name == "":
                if shape != "single" or not kind.startswith("Kind::Message("):
                    raise SystemExit(f"inline field that is not a struct in {name}: {line!r}")
                fields.append((number, f"Field::inline({number}, {kind[len('Kind::Message('):-1]})"))
            elif shape == "list":
                fields.append((number, f'Field::list({number}, "{json_name}", {kind})'))
            elif shape == "map":
                fields.append((number, f'Field::map({number}, "{json_name}", {kind})'))
            elif pointer:
                fields.append((number, f'Field::pointer({number}, "{json_name}", {kind})'))
            elif kind.startswith("Kind::Message(") or kind in STRUCT_KINDS or not omit_empty:
                fields.append((number, f'Field::always({number}, "{json_name}", {kind})'))
            else:
                fields.append((number, f'Field::omit_empty({number}, "{json_name}", {kind})'))
        numbers = [n for n, _ in fields]
        if len(set(numbers)) != len(numbers):
            raise SystemExit(f"duplicate protobuf field numbers in {name}")
        self.messages[key] = sorted(fields)
        self.order.append(key)

    def render(self):
        out = [
            f"//! Generated by `scripts/gen-protobuf-schema.py` from the Go struct tags of k8s.io/api and k8s.io/apimachinery "
            f"{API_VERSION}:",
            f"//! {len(self.order)} messages reachable from the registered kinds. Do not edit by hand; rerun the script.",
            "",
            "use super::{Field, Kind, Message};",
            "",
        ]
        for key in sorted(self.order, key=self.static_name):
            pkg, name = key
            out.append(f"pub(in crate::protobuf) static {self.static_name(key)}: Message = Message {{")
            out.append(f'    name: "{PACKAGES[pkg][3]}.{name}",')
            out.append("    fields: &[")
            for _, field in self.messages[key]:
                out.append(f"        {field},")
            out.append("    ],")
            out.append("};")
            out.append("")
        return "\n".join(out).rstrip("\n")


def main():
    generator = Generator({"api": sys.argv[1], "apimachinery": sys.argv[2]})
    for root in ROOTS:
        generator.visit(root)
    print(generator.render())
    print(f"// {len(generator.order)} messages", file=sys.stderr)


if __name__ == "__main__":
    main()
