#!/bin/sh
# Regenerates the documents under prose3/docs/ from installed Debian 12 packages.
# Needs: python3-doc sqlite3-doc debian-handbook pandoc libreoffice-writer-nogui (soffice)
#   apt-get install python3-doc sqlite3-doc debian-handbook pandoc libreoffice-writer-nogui
# The other documents of the set (R-admin.pdf from r-doc-pdf, developers-reference.html from
# developers-reference) are used as installed; see corpus.txt.
# Run from anywhere: sh testdata/quality/prose3/make-docs.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$here/docs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

PYDOC=/usr/share/doc/python3/html
SQLDOC=/usr/share/doc/sqlite3
DAH=/usr/share/doc/debian-handbook/html/en-US

# sphinx_body FILE...: the main text (div.body) of Sphinx pages, concatenated, as one HTML file on stdout.
sphinx_body() {
	python3 - "$@" <<'EOF'
import re, sys
print('<html><head><meta charset="utf-8"><title>x</title></head><body>')
for f in sys.argv[1:]:
    s = open(f, encoding='utf-8').read()
    a = s.index('<div class="body" role="main">') + len('<div class="body" role="main">')
    b = s.index('<div class="sphinxsidebar"')
    body = s[a:b]
    body = re.sub(r'<a class="headerlink"[^>]*>.*?</a>', '', body, flags=re.S)
    print(body)
print('</body></html>')
EOF
}

# 1. Python 3.11 FAQ (all eight parts) as an EPUB.
sphinx_body $PYDOC/faq/general.html $PYDOC/faq/programming.html $PYDOC/faq/design.html \
	$PYDOC/faq/library.html $PYDOC/faq/extending.html $PYDOC/faq/windows.html \
	$PYDOC/faq/gui.html $PYDOC/faq/installed.html >"$tmp/faq.html"
pandoc -f html -t epub3 --metadata title="Python Frequently Asked Questions" \
	--metadata author="Python Software Foundation" --metadata lang=en \
	--metadata date=2023-02-01 -o "$out/python-faq.epub" "$tmp/faq.html"

# 2. The Python tutorial, chapters 1-8 as DOCX (pandoc), chapters 9-16 as ODT (pandoc to DOCX, then LibreOffice).
T=$PYDOC/tutorial
sphinx_body $T/appetite.html $T/interpreter.html $T/introduction.html $T/controlflow.html \
	$T/datastructures.html $T/modules.html $T/inputoutput.html $T/errors.html >"$tmp/tut1.html"
sphinx_body $T/classes.html $T/stdlib.html $T/stdlib2.html $T/venv.html $T/whatnow.html \
	$T/interactive.html $T/floatingpoint.html $T/appendix.html >"$tmp/tut2.html"
pandoc -f html -t docx --metadata title="The Python Tutorial, chapters 1-8" -o "$out/python-tutorial-1.docx" "$tmp/tut1.html"
pandoc -f html -t docx --metadata title="The Python Tutorial, chapters 9-16" -o "$tmp/python-tutorial-2.docx" "$tmp/tut2.html"
HOME=$tmp soffice --headless --convert-to odt --outdir "$out" "$tmp/python-tutorial-2.docx" >/dev/null

# 3. The SQLite FAQ as a plain-text file.
python3 - $SQLDOC/faq.html >"$tmp/sqlfaq.html" <<'EOF'
import sys
s = open(sys.argv[1], encoding='utf-8').read()
a = s.index('<h2>Frequently Asked Questions</h2>')
print('<html><body>' + s[a:])
EOF
pandoc -f html -t plain --wrap=auto --columns=76 "$tmp/sqlfaq.html" | sed 's/[ \t]*$//' >"$out/sqlite-faq.txt"

# 4. The Debian Administrator's Handbook (Bullseye edition, en-US) as one HTML file:
#    every page in reading order (following the 'next' links), without navigation, images or index anchors.
python3 - "$DAH" >"$out/debian-handbook.html" <<'EOF'
import os, re, sys
d = sys.argv[1]
page, seen, parts = 'index.html', set(), []
while page and page not in seen:
    seen.add(page)
    s = open(os.path.join(d, page), encoding='utf-8').read()
    m = re.search(r'<ul class="docnav top">.*?</ul>', s, re.S)
    a = m.end() if m else s.index('<body>') + 6
    b = s.find('<ul class="docnav">', a)
    if b < 0:
        b = s.index('</body>')
    body = s[a:b]
    body = re.sub(r'<a id="[^"]*" class="indexterm"></a>', '', body)
    body = re.sub(r'<img [^>]*/>', '', body)
    body = re.sub(r'<div class="mediaobject">\s*</div>', '', body)
    body = re.sub(r' href="(?!http|mailto)[^"#]*#', ' href="#', body)
    body = re.sub(r' href="(?!http|mailto|#)([^"]*)\.html"', r' href="#\1"', body)
    parts.append(body)
    n = re.search(r'<link rel="next" href="([^"]*)"', s)
    page = n.group(1) if n else None
print('<?xml version="1.0" encoding="UTF-8"?>')
print('<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">')
print('<html xmlns="http://www.w3.org/1999/xhtml"><head><meta http-equiv="Content-Type" content="text/html; charset=UTF-8" />')
print("<title>The Debian Administrator's Handbook</title></head><body>")
print('\n'.join(parts))
print('</body></html>')
EOF

# 5. An e-mail announcing SQLite 3.40.0, its body the release notes as plain text.
pandoc -f html -t plain --wrap=auto --columns=72 $SQLDOC/releaselog/3_40_0.html >"$tmp/rel.txt"
python3 - "$tmp/rel.txt" >"$out/sqlite-3.40.0-release.eml" <<'EOF'
import re, sys
from email.message import EmailMessage
from email.policy import SMTP
t = open(sys.argv[1], encoding='utf-8').read()
a = t.index('SQLite Release 3.40.0')
t = t[a:].strip()
t = re.sub(r'\n{3,}', '\n\n', t)
m = EmailMessage(policy=SMTP)
m['From'] = 'SQLite release team <releases@sqlite.example.org>'
m['To'] = 'Database tools users <db-users@lists.example.org>'
m['Date'] = 'Wed, 16 Nov 2022 14:02:11 +0000'
m['Subject'] = 'ANN: SQLite 3.40.0 released'
m['Message-ID'] = '<20221116140211.sqlite-3.40.0@sqlite.example.org>'
body = ('Hello all,\n\nSQLite version 3.40.0 is out. The release notes follow.\n\n'
        + t + '\n\n-- \nThe SQLite release team\n')
m.set_content(body, charset='utf-8', cte='8bit')
sys.stdout.write(m.as_string().replace('\r\n', '\n'))
EOF
ls -la "$out"
