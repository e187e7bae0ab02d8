#!/usr/bin/env python3
"""Writes the runs of the strvals probe chart from Helm's own parser tests.

Usage: strvals_runs.py parser_test.go literal_parser_test.go > ../charts/strvals/runs

Only the inputs are taken from Helm's tests (which flag each test function exercises); what each input produces
comes from running real Helm (tests/regen.sh), never from the tests' expectations.
"""
import re
import sys

# Which flag each test table exercises.
FLAGS = [
    ("parser_test.go", "testsString", "--set-string"),
    ("parser_test.go", "TestParseSet.tests", "--set"),
    ("parser_test.go", "TestParseInto", "--set"),
    ("parser_test.go", "TestParseIntoString", "--set-string"),
    ("parser_test.go", "TestParseJSON", "--set-json"),
    ("parser_test.go", "TestParseSetNestedLevels", "--set"),
    ("literal_parser_test.go", "", "--set-literal"),
]

GO_STRING = re.compile(r'^\s*(?:str|input|input2):\s*("(?:[^"\\]|\\.)*"|`[^`]*`)\s*,?\s*$')


def go_unquote(literal):
    if literal.startswith("`"):
        return literal[1:-1]
    return bytes(literal[1:-1], "utf-8").decode("unicode_escape")


def table_of(path, line, function):
    name = path.rsplit("/", 1)[-1]
    if name == "literal_parser_test.go":
        return "--set-literal"
    if function == "TestParseSet":
        return "--set-string" if line == "testsString" else "--set"
    for file, key, flag in FLAGS:
        if file == name and key == function:
            return flag
    return None


def main():
    seen = set()
    for path in sys.argv[1:]:
        function, table = "", ""
        for text in open(path, encoding="utf-8"):
            match = re.match(r"^func (Test\w+)", text)
            if match:
                function, table = match.group(1), ""
            if "testsString := []struct" in text:
                table = "testsString"
            elif re.search(r"\btests := \[\]struct", text):
                table = "tests"
            literal = GO_STRING.match(text)
            if not literal:
                continue
            flag = table_of(path, table, function)
            if flag is None:
                continue
            value = go_unquote(literal.group(1))
            if (flag, value) in seen:
                continue
            seen.add((flag, value))
            print(f"{flag.lstrip('-')}-{len(seen):03d}\t{flag}\t{value}")


main()
