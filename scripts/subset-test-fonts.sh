#!/usr/bin/env bash
# The fonts the shaped-text tests use, cut down to the characters those tests draw: Noto Sans
# (Latin, ligatures), Arabic, Hebrew, Devanagari, Thai, CJK (Simplified Chinese face) and Noto
# Color Emoji, from Debian's fonts-noto-core, fonts-noto-cjk and fonts-noto-color-emoji, by
# fontTools' subsetter (`pip install fonttools`). All are under the SIL Open Font License 1.1
# (OFL.txt beside them). Rerun it only to change the characters; the test strings are in
# crates/wavekit-ui/fonts/strings.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
out=crates/wavekit-ui/fonts
noto=/usr/share/fonts/truetype/noto
cjk=/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc
text=$(cat "$out/strings.txt")
sub() { # IN OUT [more characters] [extra pyftsubset options]
    local in=$1 o=$2 more=${3:-}
    shift 2
    shift || true
    pyftsubset "$in" --text="$text" --unicodes="U+0020-007E${more:+,$more}" --layout-features='*' \
        --no-hinting --desubroutinize --name-IDs='*' --output-file="$out/$o" "$@"
}
sub "$noto/NotoSans-Regular.ttf" NotoSans-subset.ttf
sub "$noto/NotoSansArabic-Regular.ttf" NotoSansArabic-subset.ttf
sub "$noto/NotoSansHebrew-Regular.ttf" NotoSansHebrew-subset.ttf
sub "$noto/NotoSansDevanagari-Regular.ttf" NotoSansDevanagari-subset.ttf
# Sara am is drawn as nikhahit and sara aa (the shaper decomposes it).
sub "$noto/NotoSansThai-Regular.ttf" NotoSansThai-subset.ttf "U+0E32,U+0E4D"
sub "$cjk" NotoSansSC-subset.otf "" --font-number=2
sub "$noto/NotoColorEmoji.ttf" NotoColorEmoji-subset.ttf
ls -l "$out"
