"""Writes the hostile and broken fixtures: a zip bomb, billion-laughs and
deeply nested XML inside otherwise valid DOCX packages, a huge-sheet XLSX,
and truncated copies of real files."""
import io, os, sys, zipfile

out = sys.argv[1]

def path(name):
    return os.path.join(out, name)

def docx_with(document_xml, name, compress=zipfile.ZIP_DEFLATED):
    """A DOCX whose word/document.xml is replaced, other parts kept."""
    src = zipfile.ZipFile(path("report.docx"))
    with zipfile.ZipFile(path(name), "w", compress) as z:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename == "word/document.xml":
                data = document_xml
            z.writestr(item.filename, data, compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)

W = b'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'

# 64 MiB of one repeated paragraph: deflates about 1000:1.
para = b'<w:p><w:r><w:t>bomb</w:t></w:r></w:p>'
body = para * (64 * 1024 * 1024 // len(para))
docx_with(b'<?xml version="1.0"?><w:document ' + W + b'><w:body>' + body + b'</w:body></w:document>', "zipbomb.docx")

laughs = [b'<!ENTITY lol "lol">']
for i in range(1, 10):
    prev = b"&lol;" if i == 1 else b"&lol%d;" % (i - 1)
    laughs.append(b'<!ENTITY lol%d "%s">' % (i, prev * 10))
docx_with(b'<?xml version="1.0"?><!DOCTYPE lolz [' + b"".join(laughs) + b']><w:document ' + W +
          b'><w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p></w:body></w:document>', "laughs.docx")

depth = 100000
docx_with(b'<?xml version="1.0"?><w:document ' + W + b'><w:body>' + b'<w:sdt>' * depth +
          b'<w:p><w:r><w:t>deep</w:t></w:r></w:p>' + b'</w:sdt>' * depth + b'</w:body></w:document>', "deep.docx")

# 100,000 rows of 10 identical cells: a million cells that deflate far
# beyond the zip-bomb ratio (so default limits refuse the file) and, with
# the ratio check off, run into a cell cap set by the test.
src = zipfile.ZipFile(path("budget.xlsx"))
with zipfile.ZipFile(path("hugesheet.xlsx"), "w", zipfile.ZIP_DEFLATED) as z:
    for item in src.infolist():
        data = src.read(item.filename)
        if item.filename == "xl/worksheets/sheet1.xml":
            rows = io.BytesIO()
            rows.write(b'<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>')
            rows.write(b'<row><c t="inlineStr"><is><t>Reading</t></is></c></row>')
            for r in range(100000):
                rows.write(b'<row>' + b'<c><v>7</v></c>' * 10 + b'</row>')
            rows.write(b'</sheetData></worksheet>')
            data = rows.getvalue()
        z.writestr(item.filename, data, compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)

for name, cut in [("report.pdf", 0.5), ("report.docx", 0.6), ("deck.pptx", 0.5), ("budget.xlsx", 0.5), ("book.epub", 0.5)]:
    data = open(path(name), "rb").read()
    base, ext = os.path.splitext(name)
    with open(path("truncated" + ext), "wb") as f:
        f.write(data[: int(len(data) * cut)])

def ole_encrypted_package(name):
    """A password-protected OOXML file as Office writes it: an OLE compound
    file holding EncryptionInfo and EncryptedPackage streams ([MS-OFFCRYPTO]).
    LibreOffice 7.4 cannot save one, so the container is written here; the
    stream contents are placeholders, since only the container is read."""
    import struct
    S = 512
    info = b"\x04\x00\x04\x00\x40\x00\x00\x00" + b"\x00" * (4096 - 8)   # agile encryption v4.4
    package = struct.pack("<Q", 7673) + os.urandom(8192 - 8)
    ENDOFCHAIN, FREESECT, FATSECT, NOSTREAM = 0xFFFFFFFE, 0xFFFFFFFF, 0xFFFFFFFD, 0xFFFFFFFF
    # Sectors: 0 FAT, 1 directory, 2-9 EncryptionInfo, 10-25 EncryptedPackage.
    fat = [FATSECT, ENDOFCHAIN]
    fat += list(range(3, 10)) + [ENDOFCHAIN]
    fat += list(range(11, 26)) + [ENDOFCHAIN]
    fat += [FREESECT] * (128 - len(fat))
    header = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1" + b"\x00" * 16
    header += struct.pack("<HHHHH", 0x3E, 3, 0xFFFE, 9, 6) + b"\x00" * 6
    header += struct.pack("<IIIIIIIII", 0, 1, 1, 0, 4096, ENDOFCHAIN, 0, ENDOFCHAIN, 0)
    header += struct.pack("<I", 0) + struct.pack("<I", FREESECT) * 108
    def entry(name, typ, child, left, right, start, size):
        n = (name + "\x00").encode("utf-16-le") if name else b""
        return (n.ljust(64, b"\x00") + struct.pack("<HBB", len(n), typ, 1) +
                struct.pack("<III", left, right, child) + b"\x00" * 16 + b"\x00" * 4 +
                b"\x00" * 16 + struct.pack("<IIQ", start, size, 0)[:12] + b"\x00" * 0)
    d = entry("Root Entry", 5, 1, NOSTREAM, NOSTREAM, ENDOFCHAIN, 0)
    d += entry("EncryptionInfo", 2, NOSTREAM, NOSTREAM, 2, 2, len(info))
    d += entry("EncryptedPackage", 2, NOSTREAM, NOSTREAM, NOSTREAM, 10, len(package))
    d += entry("", 0, NOSTREAM, NOSTREAM, NOSTREAM, 0, 0)
    assert len(header) == S and len(d) == S, (len(header), len(d))
    with open(path(name), "wb") as f:
        f.write(header + struct.pack("<128I", *fat) + d + info + package)

ole_encrypted_package("encrypted.docx")
ole_encrypted_package("encrypted.xlsx")
