#!/usr/bin/env bash
# Regenerates the extraction fixtures in this folder from the sources in
# src/. The results are committed, so `make test` needs none of the tools
# below; run this only to change a fixture.
#
# Debian packages: libreoffice-writer libreoffice-calc libreoffice-impress
# python3-uno pandoc texlive-binaries (pdftex) poppler-utils qpdf img2pdf
# imagemagick python3.
set -euo pipefail
cd "$(dirname "$0")"
out=$PWD
src=$PWD/src
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work # LibreOffice writes its profile under $HOME
export SOURCE_DATE_EPOCH=1700000000

lo() { soffice --headless --norestore --convert-to "$1" --outdir "$out" "$2" >/dev/null 2>&1; }

# Office documents from the flat ODF sources, through LibreOffice.
for fmt in docx odt pdf rtf doc; do lo "$fmt" "$src/report.fodt"; done
for fmt in xlsx ods xls; do lo "$fmt" "$src/budget.fods"; done
lo pdf "$src/scan.fodt"
mv "$out/scan.pdf" "$work/scan.pdf"

# Presentation and book through pandoc, then LibreOffice for ODP and PPT.
pandoc "$src/deck.md" -o "$out/deck.pptx"
lo odp "$out/deck.pptx"

pandoc "$src/book.md" -o "$out/book.epub"

# A pdfTeX PDF: ligature glyphs, hyphenation, running heads, page numbers.
(cd "$work" && pdftex -interaction=batchmode "$src/ligatures.tex" >/dev/null)
cp "$work/ligatures.pdf" "$out/ligatures.pdf"

# Scans: the two pages of scan.pdf as 150 dpi grey images, then a PDF made
# only of those images (no text layer) and one image per format.
pdftoppm -r 150 -gray -png "$work/scan.pdf" "$work/page"
img2pdf "$work/page-1.png" "$work/page-2.png" -o "$out/scanned.pdf"
cp "$work/page-1.png" "$out/scan.png"
for x in jpg tif gif webp; do convert-im6.q16 "$work/page-1.png" "$out/scan.$x"; done
convert-im6.q16 "$work/page-1.png" -monochrome "$out/scan.bmp"
convert-im6.q16 "$work/page-1.png" "$work/page-2.png" -compress Group4 -monochrome "$out/scan2.tif"

# A PDF whose first page has text and whose second is a scan, stored as a
# JPEG as scanners do (the pure-Go reader hands JPEG page images to OCR).
pdftoppm -r 150 -gray -jpeg -f 2 -l 2 "$work/scan.pdf" "$work/second"
img2pdf "$work"/second-*.jpg -o "$work/second.pdf"
qpdf --empty --pages "$work/scan.pdf" 1 "$work/second.pdf" 1 -- "$out/mixed.pdf"

# Password-protected files.
qpdf --encrypt secret owner 256 -- "$out/report.pdf" "$out/encrypted.pdf"
pipe=cairn-fixtures-$$
soffice --headless --norestore --invisible "--accept=pipe,name=$pipe;urp;" >/dev/null 2>&1 &
lopid=$!
/usr/bin/python3 "$src/encrypt.py" "$out" "$pipe"
wait "$lopid" || true

# An Outlook message: no Debian tool writes .msg, so this is the sample
# that ships with github.com/richardlehane/mscfb (Apache-2.0), taken from
# the Go module cache.
msg=$(cd "$out" && go env GOMODCACHE)/github.com/richardlehane/mscfb@v1.0.9/test/test.msg
[ -f "$msg" ] || (cd "$out" && go mod download github.com/richardlehane/mscfb)
cp "$msg" "$out/outlook.msg"
chmod 644 "$out/outlook.msg"

# E-mail, then the hostile and broken files.
python3 "$src/mail.py" "$out"
python3 "$src/broken.py" "$out"  # after encrypt.py: replaces its encrypted.docx
cp "$out/scan.png" "$out/png-named.docx"   # wrong extension
cp "$out/report.docx" "$out/docx-named.pdf"
printf 'plain words in a file that claims to be a spreadsheet\n' > "$out/text-named.xlsx"
ls -l "$out"
