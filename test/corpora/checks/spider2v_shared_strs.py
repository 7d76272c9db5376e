"""Spider2-V read_cell_value (desktop_env/evaluators/metrics/utils.py:283-328), run in place on small .xlsx files
built here. lxml and xmltodict are not needed: the module's selectors and parsers are stood in for by
xml.etree equivalents (element .text of an empty <t/> is None in both). When reading xl/sharedStrings.xml
fails, the bare except at 294 only logs, `shared_strs` stays unbound, and a shared-string cell (t="s") then
reads it at line 323, outside the (KeyError, ValueError) handler. Cases: a normal workbook; shared strings
holding an empty string (<si><t/></si>: "".join over a None text raises TypeError at 291); no sharedStrings
part.

    python3 test/corpora/checks/spider2v_shared_strs.py
"""
import io
import logging
import re
import types
import typing
import xml.etree.ElementTree as ET
import zipfile

from _corpus import function, line_of, suite

S2V = suite("spider2v")
M = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
log = logging.getLogger("check")
log.disabled = True


def css(selector, namespaces=None):
    r = re.search(r'r="(\w+)"', selector).group(1)
    return lambda sheet: [c for c in sheet.iter(f"{{{M}}}c") if c.get("r") == r]


def to_dict(xml, process_namespaces=True, namespaces=None):
    c = ET.fromstring(xml)
    return {"c": {**{"@" + k: v for k, v in c.attrib.items()}, "v": c.find(f"{{{M}}}v").text}}


ns = {
    "zipfile": zipfile, "logger": log, "_Element": object, **{n: getattr(typing, n) for n in ("Any", "Dict", "List")},
    "lxml": types.SimpleNamespace(etree=types.SimpleNamespace(fromstring=ET.fromstring, tostring=ET.tostring), cssselect=types.SimpleNamespace(CSSSelector=css)),
    "xmltodict": types.SimpleNamespace(parse=to_dict), "_xlsx_ns_mapping": {}, "_xlsx_ns_imapping": {},
    "_shared_str_selector": lambda x: x.findall(f"{{{M}}}si"),
    "_shared_str_value_selector": lambda e: list(e.iter(f"{{{M}}}t")),
    "_sheet_name_selector": lambda wb: wb.findall(f"{{{M}}}sheets/{{{M}}}sheet"),
}
read_cell_value = function(S2V, "desktop_env/evaluators/metrics/utils.py", "read_cell_value", ns)


def book(shared):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        if shared is not None:
            z.writestr("xl/sharedStrings.xml", f'<sst xmlns="{M}">{shared}</sst>')
        z.writestr("xl/workbook.xml", f'<workbook xmlns="{M}"><sheets><sheet name="Sheet1" sheetId="1"/></sheets></workbook>')
        z.writestr("xl/worksheets/sheet1.xml", f'<worksheet xmlns="{M}"><sheetData><row r="1"><c r="A1" t="s"><v>1</v></c></row></sheetData></worksheet>')
    buf.seek(0)
    return buf


for label, shared in (("shared strings ['x', 'Demographic Profile']", "<si><t>x</t></si><si><t>Demographic Profile</t></si>"),
                      ("shared strings with an empty string <si><t/></si> first", "<si><t/></si><si><t>Demographic Profile</t></si>"),
                      ("no xl/sharedStrings.xml", None)):
    try:
        out = f"returns {read_cell_value(book(shared), 'Sheet1', 'A1')!r}"
    except Exception as exc:  # noqa: BLE001
        out = f"raises {type(exc).__name__}: {exc} at {':'.join(map(str, line_of(exc)))}"
    print(f"{label}; A1 is shared string 1: {out}")
