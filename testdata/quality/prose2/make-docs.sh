#!/bin/sh
# Regenerates the documents of the prose2 set under docs/ from installed Debian 12 packages:
# debian-faq, linux-doc (6.1), perl-doc (5.36), pandoc, libreoffice-writer-nogui.
# Run from anywhere: sh testdata/quality/prose2/make-docs.sh
set -e
cd "$(dirname "$0")"
POD=/usr/share/perl/5.36.0/pod
KDOC=/usr/share/doc/linux-doc/Documentation/admin-guide
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p docs

# Plain text: the Debian GNU/Linux FAQ, as installed (only decompressed).
zcat /usr/share/doc/debian/FAQ/debian-faq.en.txt.gz > docs/debian-faq.txt

# EPUB: the kernel admin-guide's "Reporting issues" document, from reStructuredText.
zcat "$KDOC/reporting-issues.rst.gz" > "$T/reporting-issues.rst"
pandoc --quiet -f rst -t epub3 --metadata title="Reporting issues (Linux kernel)" --metadata creator="Thorsten Leemhuis" \
  --metadata lang=en -o docs/reporting-issues.epub "$T/reporting-issues.rst"

# ODT: perlootut (object-oriented programming in Perl tutorial), pod2html then LibreOffice.
pod2html --noindex --cachedir="$T" --infile="$POD/perlootut.pod" --outfile="$T/perlootut.html" --title="perlootut - Object-Oriented Programming in Perl Tutorial" 2>/dev/null
(cd "$T" && HOME="$T" soffice --headless --infilter=HTML --convert-to odt:writer8 perlootut.html >/dev/null 2>&1)
cp "$T/perlootut.odt" docs/perlootut.odt

# E-mail: the kernel admin-guide's "Kernel module signing facility" as an RFC 822 message with a plain-text body.
zcat "$KDOC/module-signing.rst.gz" > "$T/module-signing.rst"
pandoc -f rst -t plain --columns=72 -o "$T/module-signing.txt" "$T/module-signing.rst"
{
  printf 'From: Build Team <build@example.org>\n'
  printf 'To: Kernel Packaging <kernel-packaging@example.org>\n'
  printf 'Subject: Fwd: notes on kernel module signing\n'
  printf 'Date: Tue, 10 Nov 2026 14:02:00 +0000\n'
  printf 'Message-ID: <module-signing.20261110@example.org>\n'
  printf 'MIME-Version: 1.0\n'
  printf 'Content-Type: text/plain; charset=utf-8\n'
  printf 'Content-Transfer-Encoding: 8bit\n'
  printf '\n'
  printf 'Hello,\n\nbefore we switch on module signing for the next kernel build, please\n'
  printf "read the kernel admin-guide's text on it (Documentation/admin-guide/\n"
  printf 'module-signing.rst, GPL-2.0), copied below.\n\n'
  cat "$T/module-signing.txt"
  printf '\n-- \nBuild Team\n'
} > docs/module-signing.eml
