#!/usr/bin/env bash
# Writes docs/case-reference.md from `gpufem run --help`: the case-file reference (every key,
# the formats and preconditioners from their registries) and the built-in shapes. A test
# (CaseFile.DocsHoldTheReference) checks that the page holds the program's text.
# Usage: scripts/case_reference.sh [gpufem executable] (default build/gpufem)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
gpufem=${1:-$here/build/gpufem}
help=$("$gpufem" run --help)
reference=$(printf '%s\n' "$help" | sed -n '/^Case file reference (YAML)$/,/^Built-in shapes:$/p' | sed '$d')
shapes=$(printf '%s\n' "$help" | sed -n '/^Built-in mesh shapes/,/^Exit codes:/p' | sed '$d')
{
  cat <<'HEAD'
# Case file reference

A case file is one YAML map; this page lists every key with its type, default and meaning, then
the shapes gpufem builds itself. It is the text `gpufem run --help` prints, made from the
program's own tables (the formats, operator levels and preconditioners come from their
registries), so it always matches the program it comes with. The [tutorial](tutorial.md) shows
the keys in use, and the [gallery](gallery.md) has a ready case for most of them.

```
HEAD
  # The reference ends with a blank line; the shapes' text too.
  printf '%s\n' "$reference" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
  printf '```\n\n## Built-in shapes\n\n```\n'
  printf '%s\n' "$shapes" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
  printf '```\n'
} > "$here/docs/case-reference.md"
echo "wrote docs/case-reference.md"
