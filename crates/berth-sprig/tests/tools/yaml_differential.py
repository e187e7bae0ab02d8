#!/usr/bin/env python3
"""Differential check of berth's YAML/TOML functions against real Helm 4.1.4 on generated inputs.

    tests/tools/yaml_differential.py GENERATOR SEED COUNT [PIPELINE]

GENERATOR: yaml (YAML-looking fragments), strings (scalar style edge cases), keys (maps with tricky keys, as JSON),
toml (TOML documents). PIPELINE: template functions applied to each input, e.g. "fromYaml|toYaml" (default
fromYaml). Every input is run through `helm template` (one chart, `b64dec $v | PIPELINE | toJson`) and through the
ignored test yaml_differential.rs; the script prints the inputs whose results differ and a match count.
Helm: $HELM, else /work/peers/helm.
"""
import base64, json, os, random, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CRATE = os.path.dirname(os.path.dirname(HERE))

def gen_yaml(rng):
    frags = ["a", "b", "key", "yes", "no", "~", "null", "1", "0x1F", "1.5", "-", "- ", ":", ": ", "? ", "[", "]", "{", "}",
             ",", "'", "''", '"', "\\", "#", " #c", "&a ", "*a", "!!str ", "!!int ", "!foo ", "|", "|-", ">", "\n", "\n",
             "\n  ", "\n- ", " ", "\t", "\r\n", "---", "...", "<<: ", "é", "\u2028", "\ufeff", "\x01", "@", "2001-12-14",
             "1:20", ".inf", "+1", "08", '"a b"', "{x: 1}", "[1, 2]", "k: v\n", "- x\n"]
    return "".join(rng.choice(frags) for _ in range(rng.randint(1, 25)))

def gen_string(rng):
    frags = ["a", "word", "true", "yes", "null", "~", "1", "0x1F", "1e3", "-", ":", ": ", "#", " #", "[", "{", ",", "'",
             '"', "\\", "&", "*", "!", "|", ">", "%", "@", "`", " ", "\t", "\n", "\r", "é", "日本語", "\u2028", "\u0085",
             "\ufeff", "\x01", "\x7f", "\u00a0", "😀", "---", "2001-12-14", "1:20", "x" * 40, "lorem ipsum dolor sit amet"]
    return "".join(rng.choice(frags) for _ in range(rng.randint(1, 15)))

def gen_keys(rng):
    frags = ["a", "B", "z", "_", "-", ".", "/", "1", "9", "x1", "é", "Z", "日", " ", "\n", ":", "#", "true", "ß"]
    m = {"".join(rng.choice(frags) for _ in range(rng.randint(0, 4))): rng.choice([1, "v", None, [], {}, [1, "a"], "m\nl"])
         for _ in range(rng.randint(1, 30))}
    return json.dumps(m, ensure_ascii=False)

def gen_toml(rng):
    keys = ["a", "b", "c.d", '"q k"', "'lit'", "x-y", "1"]
    vals = ["1", "-2", "0x1f", "0o7", "1_0", "1.5", "1e3", "true", '"s\\tq"', "'l'", '"""\nm\nl"""', "[1, 2]", "[]",
            "{x = 1}", "{a.b = 1, c = [1]}", "1979-05-27", "07:32:00", "1979-05-27T07:32:00Z", "[1,\n 2, # c\n]"]
    lines = []
    for _ in range(rng.randint(1, 8)):
        header = rng.choice(["", "", "", "[t]", "[t.u]", "[[at]]", "[[at.in]]"])
        if header:
            lines.append(header)
        lines.append(f"{rng.choice(keys)} = {rng.choice(vals)}")
    return "\n".join(lines)

GENERATORS = {"yaml": gen_yaml, "strings": gen_string, "keys": gen_keys, "toml": gen_toml}

def main():
    if len(sys.argv) < 4 or sys.argv[1] not in GENERATORS:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    gen, seed, count = GENERATORS[sys.argv[1]], int(sys.argv[2]), int(sys.argv[3])
    pipeline = sys.argv[4] if len(sys.argv) > 4 else "fromYaml"
    rng = random.Random(seed)
    cases = [base64.b64encode(gen(rng).encode("utf-8", "surrogatepass")).decode() for _ in range(count)]
    work = tempfile.mkdtemp()
    chart = os.path.join(work, "c")
    os.makedirs(os.path.join(chart, "templates"))
    with open(os.path.join(chart, "Chart.yaml"), "w") as f:
        f.write("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    with open(os.path.join(chart, "values.yaml"), "w") as f:
        f.write(json.dumps({"cases": cases}))
    with open(os.path.join(chart, "templates", "t.yaml"), "w") as f:
        f.write("out:\n{{- range $i, $v := .Values.cases }}\n  - {{ b64dec $v | %s | toJson | b64enc | quote }}\n{{- end }}\n"
                % pipeline)
    helm = os.environ.get("HELM", "/work/peers/helm")
    run = subprocess.run([helm, "template", chart], capture_output=True, text=True,
                         env={**os.environ, "HOME": tempfile.mkdtemp()})
    if run.returncode != 0:
        sys.exit(f"helm failed: {run.stderr}")
    helm_out = [base64.b64decode(line.strip()[3:-1]).decode() for line in run.stdout.splitlines()
                if line.strip().startswith('- "')]
    cases_path, out_path = os.path.join(work, "cases.txt"), os.path.join(work, "berth.txt")
    with open(cases_path, "w") as f:
        f.write("\n".join(cases) + "\n")
    env = {**os.environ, "YAML_DIFF_CASES": cases_path, "YAML_DIFF_FUNC": pipeline, "YAML_DIFF_OUT": out_path}
    subprocess.run(["cargo", "test", "-q", "-p", "berth-sprig", "--test", "yaml_differential", "--", "--ignored"],
                   cwd=CRATE, env=env, check=True, capture_output=True)
    berth_out = open(out_path).read().splitlines()
    bad = 0
    for i, case in enumerate(cases):
        want = helm_out[i] if i < len(helm_out) else "<missing>"
        got = berth_out[i] if i < len(berth_out) else "<missing>"
        if want != got:
            bad += 1
            print(f"--- {base64.b64decode(case)!r}\n helm:  {want}\n berth: {got}")
    print(f"{len(cases) - bad}/{len(cases)} match")

if __name__ == "__main__":
    main()
