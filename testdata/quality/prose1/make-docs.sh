#!/bin/sh
# Regenerates the documents of the prose1 set under docs/ from installed Debian 12 packages:
# perl-doc (5.36), linux-doc (6.1), pandoc, libreoffice-writer-nogui.
# Run from anywhere: sh testdata/quality/prose1/make-docs.sh
set -e
cd "$(dirname "$0")"
POD=/usr/share/perl/5.36.0/pod
KDOC=/usr/share/doc/linux-doc/Documentation/admin-guide
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p docs

# EPUB: the Perl FAQ (perlfaq1..perlfaq9), one chapter per part, from pod2html.
for n in 1 2 3 4 5 6 7 8 9; do
  pod2html --noindex --cachedir="$T" --infile="$POD/perlfaq$n.pod" --outfile="$T/perlfaq$n.html" --title="perlfaq$n" 2>/dev/null
done
pandoc --quiet -f html -t epub3 --metadata title="The Perl FAQ" --metadata creator="Tom Christiansen, Nathan Torkington, brian d foy and others" \
  --metadata lang=en -o docs/perlfaq.epub "$T"/perlfaq1.html "$T"/perlfaq2.html "$T"/perlfaq3.html "$T"/perlfaq4.html \
  "$T"/perlfaq5.html "$T"/perlfaq6.html "$T"/perlfaq7.html "$T"/perlfaq8.html "$T"/perlfaq9.html

# PDF: perlretut (Perl regular expressions tutorial), pod2html then LibreOffice.
pod2html --noindex --cachedir="$T" --infile="$POD/perlretut.pod" --outfile="$T/perlretut.html" --title="perlretut - Perl regular expressions tutorial" 2>/dev/null
(cd "$T" && HOME="$T" soffice --headless --convert-to pdf:writer_web_pdf_Export perlretut.html >/dev/null 2>&1)
cp "$T/perlretut.pdf" docs/perlretut.pdf

# HTML: perlsub (Perl subroutines), pod2html.
pod2html --cachedir="$T" --infile="$POD/perlsub.pod" --outfile=docs/perlsub.html --title="perlsub - Perl subroutines" 2>/dev/null

# DOCX: the kernel admin-guide's Control Group v2 document, from reStructuredText.
zcat "$KDOC/cgroup-v2.rst.gz" > "$T/cgroup-v2.rst"
pandoc -f rst -t docx --metadata title="Control Group v2" -o docs/cgroup-v2.docx "$T/cgroup-v2.rst"

# E-mail: the kernel admin-guide's "Tainted kernels" text as an RFC 822 message with a plain-text body.
zcat "$KDOC/tainted-kernels.rst.gz" > "$T/tainted.rst"
pandoc -f rst -t plain --columns=72 -o "$T/tainted.txt" "$T/tainted.rst"
{
  printf 'From: Kernel Notes <kernel-notes@example.org>\n'
  printf 'To: Ops Team <ops@example.org>\n'
  printf 'Subject: Tainted kernels: what the taint flags mean\n'
  printf 'Date: Mon, 02 Nov 2026 09:15:00 +0000\n'
  printf 'Message-ID: <tainted-kernels.20261102@example.org>\n'
  printf 'MIME-Version: 1.0\n'
  printf 'Content-Type: text/plain; charset=utf-8\n'
  printf 'Content-Transfer-Encoding: 8bit\n'
  printf '\n'
  printf 'Hi all,\n\nsince the question came up again last week, here is the kernel\n'
  printf "admin-guide's text on tainted kernels (Documentation/admin-guide/\n"
  printf 'tainted-kernels.rst, GPL-2.0), for reference.\n\n'
  cat "$T/tainted.txt"
  printf '\n-- \nKernel Notes\n'
} > docs/tainted-kernels.eml
