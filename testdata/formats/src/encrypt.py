"""Saves a password-protected copy of report.odt (ODF encryption) through
LibreOffice's UNO API. (LibreOffice 7.4 ignores the password when it saves
OOXML, so broken.py writes the encrypted DOCX/XLSX containers.)
Run with LibreOffice's python3 (Debian python3-uno) while soffice listens
on a pipe named by argv[2]."""
import os, sys, time
import uno
from com.sun.star.beans import PropertyValue

out, pipe = sys.argv[1], sys.argv[2]

def prop(name, value):
    p = PropertyValue()
    p.Name, p.Value = name, value
    return p

local = uno.getComponentContext()
resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
for _ in range(60):
    try:
        ctx = resolver.resolve("uno:pipe,name=%s;urp;StarOffice.ComponentContext" % pipe)
        break
    except Exception:
        time.sleep(0.5)
desktop = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
url = uno.systemPathToFileUrl(os.path.abspath(os.path.join(out, "report.odt")))
doc = desktop.loadComponentFromURL(url, "_blank", 0, (prop("Hidden", True),))
for name, flt in [("encrypted.odt", "writer8")]:
    target = uno.systemPathToFileUrl(os.path.abspath(os.path.join(out, name)))
    doc.storeToURL(target, (prop("FilterName", flt), prop("Password", "secret")))
doc.close(True)
try:
    desktop.terminate()
except Exception:
    pass
