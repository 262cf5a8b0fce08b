#!/usr/bin/env bash
# Regenerates the man pages in docs/man/ from the commands themselves, with swift-argument-
# parser's manual plugin (one page per command: `man docs/man/locaudit.audit.1`). Run it after
# changing a command's flags or help; ManPageTests fails while a page is behind its command.
set -euo pipefail
cd "$(dirname "$0")/.."
swift package --disable-sandbox generate-manual --multi-page --configuration debug
rm -rf docs/man
mkdir -p docs/man
cp .build/plugins/GenerateManual/outputs/locaudit/*.1 docs/man/
echo "docs/man: $(ls docs/man | wc -l) pages"
