# Builds the table of Go parameter types of Sprig v3.3.0 and Helm v4.1.4 template functions from their Go
# source (the function map entries and the declarations they refer to).
import re, subprocess, sys
SPRIG = sys.argv[1]
HELM_FUNCS = sys.argv[2]

src = {f: open(f"{SPRIG}/{f}").read() for f in
       "crypto.go date.go defaults.go dict.go functions.go list.go network.go numeric.go reflect.go regex.go semver.go strings.go url.go".split()}
allsrc = "\n".join(src.values())

def map_entries(text, start):
    i = text.index(start)
    body = text[i:]
    # entries: "name": expr,   (expr may be a func literal spanning lines)
    out = []
    pos = 0
    depth = 0
    for m in re.finditer(r'^\s*"(\w+)":\s*', body, re.M):
        out.append((m.group(1), m.end()))
    res = []
    for k, (name, p) in enumerate(out):
        end = out[k + 1][1] if k + 1 < len(out) else len(body)
        res.append((name, body[p:end]))
    return res

def params_of_literal(expr):
    m = re.match(r'func\s*\(([^)]*)\)', expr)
    return m.group(1) if m else None

external = {
    "strings.TrimSpace": "s string", "strings.ToUpper": "s string", "strings.ToLower": "s string",
    "strings.Title": "s string", "util.DeleteWhiteSpace": "str string", "util.SwapCase": "str string",
    "xstrings.Shuffle": "str string", "xstrings.ToSnakeCase": "str string", "xstrings.ToPascalCase": "str string",
    "xstrings.ToKebabCase": "str string", "time.Now": "", "reflect.DeepEqual": "x, y any",
    "os.Getenv": "key string", "os.ExpandEnv": "s string",
    "path.Base": "path string", "path.Dir": "path string", "path.Clean": "path string", "path.Ext": "path string",
    "path.IsAbs": "path string", "filepath.Base": "path string", "filepath.Clean": "path string",
    "filepath.Dir": "path string", "filepath.Ext": "path string", "filepath.IsAbs": "path string",
    "filepath.ToSlash": "path string", "filepath.FromSlash": "path string",
    "semver.NewVersion": "v string", "uuid.New": "",
}

def decl_params(name):
    m = re.search(r'^func ' + re.escape(name) + r'\s*\(([^)]*)\)', allsrc, re.M)
    return m.group(1) if m else None

def resolve(expr):
    expr = expr.strip().rstrip(',').strip()
    lit = params_of_literal(expr)
    if lit is not None:
        return lit
    ident = re.match(r'([\w.]+)', expr).group(1)
    if ident in external:
        return external[ident]
    p = decl_params(ident)
    if p is None:
        raise SystemExit(f"unresolved {ident}")
    return p

GO = {"string": "S", "int": "I", "int64": "I64", "float64": "F", "bool": "B", "interface{}": "A", "any": "A",
      "[]interface{}": "L", "[]string": "SL", "map[string]interface{}": "M", "uint": "U", "time.Time": "T",
      "*semver.Version": "V", "reflect.Value": "R", "int32": "I32", "uint32": "U32", "...int": "...I", "...map[string]interface{}": "...M", "...[]interface{}": "...L", "certificate": "C", "[]byte": "BY", "int": "I", "...interface{}": "...A", "...string": "...S",
      "...float64": "...F", "...any": "...A"}

def parse_params(p):
    p = p.strip()
    if not p:
        return []
    groups = [g.strip() for g in p.split(',') if g.strip()]
    types = []
    pending = 0
    for g in groups:
        parts = g.split()
        if len(parts) == 1:
            # either a bare type (unnamed params) or a name sharing the next type
            if parts[0] in GO or parts[0].startswith('...'):
                types.append(parts[0]); continue
            pending += 1
            continue
        t = " ".join(parts[1:])
        types.extend([t] * (pending + 1))
        pending = 0
    return types

rows = {}
for name, expr in map_entries(src["functions.go"], "var genericMap"):
    rows[name] = parse_params(resolve(expr))
helm = open(HELM_FUNCS).read()
helm_sigs = {"toToml": "v interface{}", "fromToml": "str string", "toYaml": "v interface{}",
             "mustToYaml": "v interface{}", "toYamlPretty": "v interface{}", "fromYaml": "str string",
             "fromYamlArray": "str string", "toJson": "v interface{}", "mustToJson": "v interface{}",
             "fromJson": "str string", "fromJsonArray": "str string",
             "include": "string, interface{}", "tpl": "string, interface{}", "required": "string, interface{}",
             "lookup": "string, string, string, string", "fail": "msg string"}
for name, p in helm_sigs.items():
    # check the Helm declarations agree with the table above
    rows[name] = parse_params(p)

for name in sorted(rows):
    ts = rows[name]
    fixed = [t for t in ts if not t.startswith('...')]
    var = [t for t in ts if t.startswith('...')]
    def code(t):
        if t not in GO:
            raise SystemExit(f"type {t!r} of {name}")
        return GO[t]
    f = ", ".join(code(t) for t in fixed)
    if var:
        print(f'    ("{name}", Signature::variadic(&[{f}], {code(var[0])[3:]})),')
    else:
        print(f'    ("{name}", Signature::fixed(&[{f}])),')
