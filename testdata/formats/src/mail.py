"""Builds the e-mail fixtures (message.eml, mailbox.mbox) with Python's
standard library: a multipart message with an HTML alternative, a DOCX and
a PDF attachment and a forwarded message; and a three-message mailbox."""
import mailbox, os, sys
from email.message import EmailMessage

out = sys.argv[1]

def read(name):
    with open(os.path.join(out, name), "rb") as f:
        return f.read()

m = EmailMessage()
m["From"] = "Ana Survey <ana@example.org>"
m["To"] = "Ben Draughtsman <ben@example.org>"
m["Date"] = "Mon, 04 Mar 2024 09:15:00 +0000"
m["Subject"] = "=?utf-8?q?Ridge_survey_=E2=80=93_results?="
m.set_content("Hi Ben,\n\nThe ridge survey is done; the report and the deck are attached.\n\nAna\n")
m.add_alternative("<html><body><p>Hi Ben,</p><p>The ridge survey is <b>done</b>.</p></body></html>", subtype="html")
m.add_attachment(read("report.docx"), maintype="application",
                 subtype="vnd.openxmlformats-officedocument.wordprocessingml.document", filename="report.docx")
m.add_attachment(read("report.pdf"), maintype="application", subtype="pdf", filename="report.pdf")
fwd = EmailMessage()
fwd["From"] = "county@example.org"
fwd["Subject"] = "Permit granted"
fwd.set_content("Permit 2024-117 is granted for the eastern ridge.\n")
m.add_attachment(fwd)
with open(os.path.join(out, "message.eml"), "wb") as f:
    f.write(bytes(m))

path = os.path.join(out, "mailbox.mbox")
if os.path.exists(path):
    os.remove(path)
box = mailbox.mbox(path)
for i, (subj, body) in enumerate([
        ("Fuel receipts", "Fuel for March cost 1,234.50 euros.\nFrom the depot on the hill.\n"),
        ("Weather", "Fog is expected on the ridge on Thursday.\n"),
        ("Tape measure", "Bring the fifty metre tape to the north cairn.\n")]):
    e = EmailMessage()
    e["From"] = "ana@example.org"
    e["To"] = "team@example.org"
    e["Date"] = "Tue, 0%d Apr 2024 08:00:00 +0000" % (i + 1)
    e["Subject"] = subj
    e.set_content(body)
    box.add(e)
box.flush()
box.close()
