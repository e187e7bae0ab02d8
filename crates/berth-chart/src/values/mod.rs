//! Values exactly as Helm computes them: `-f` files (several, in order, `-` for stdin), the `--set` family
//! (Helm's strvals syntax), coalescing with the chart's defaults (a user `null` removes a default key), and
//! subcharts: conditions, tags, aliases, import-values, exports and globals.
