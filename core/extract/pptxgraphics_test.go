package extract

import "testing"

// A slide's chart, SmartArt diagram and a table of one header row keep
// their words: the chart's title, series and categories with their values,
// the diagram's boxes, the header cells. All three were dropped.
func TestPPTXChartsSmartArtAndHeaderOnlyTables(t *testing.T) {
	const (
		a   = `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"`
		p   = `xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"`
		r   = `xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
		c   = `xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart"`
		dgm = `xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram"`
		rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
	)
	slide := `<p:sld ` + a + ` ` + p + ` ` + r + ` ` + c + ` ` + dgm + `><p:cSld><p:spTree>
<p:graphicFrame><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart"><c:chart r:id="rId2"/></a:graphicData></a:graphic></p:graphicFrame>
<p:graphicFrame><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/diagram"><dgm:relIds r:dm="rId3" r:lo="rId4" r:qs="rId5" r:cs="rId6"/></a:graphicData></a:graphic></p:graphicFrame>
<p:graphicFrame><a:graphic><a:graphicData><a:tbl><a:tblPr firstRow="1"/><a:tr><a:tc><a:txBody><a:p><a:r><a:t>Valve</a:t></a:r></a:p></a:txBody></a:tc><a:tc><a:txBody><a:p><a:r><a:t>Torque</a:t></a:r></a:p></a:txBody></a:tc></a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>
</p:spTree></p:cSld></p:sld>`
	chart := `<c:chartSpace ` + c + ` ` + a + `><c:chart><c:title><c:tx><c:rich><a:p><a:r><a:t>Pump failures per quarter</a:t></a:r></a:p></c:rich></c:tx></c:title><c:plotArea><c:barChart>
<c:ser><c:tx><c:strRef><c:f>Sheet1!$B$1</c:f><c:strCache><c:pt idx="0"><c:v>North site</c:v></c:pt></c:strCache></c:strRef></c:tx>
<c:cat><c:strRef><c:strCache><c:pt idx="0"><c:v>Q1</c:v></c:pt><c:pt idx="1"><c:v>Q2</c:v></c:pt></c:strCache></c:strRef></c:cat>
<c:val><c:numRef><c:numCache><c:formatCode>General</c:formatCode><c:pt idx="0"><c:v>12</c:v></c:pt><c:pt idx="1"><c:v>7</c:v></c:pt></c:numCache></c:numRef></c:val></c:ser>
</c:barChart></c:plotArea></c:chart></c:chartSpace>`
	data := `<dgm:dataModel ` + dgm + ` ` + a + `><dgm:ptLst>
<dgm:pt modelId="1" type="doc"><dgm:t><a:p><a:r><a:t></a:t></a:r></a:p></dgm:t></dgm:pt>
<dgm:pt modelId="2"><dgm:t><a:bodyPr/><a:p><a:r><a:t>Close the inlet</a:t></a:r></a:p></dgm:t></dgm:pt>
<dgm:pt modelId="3"><dgm:t><a:p><a:r><a:t>Drain the </a:t></a:r><a:r><a:t>housing</a:t></a:r></a:p></dgm:t></dgm:pt>
</dgm:ptLst></dgm:dataModel>`
	pptx := zipOf(t,
		"ppt/presentation.xml", `<p:presentation `+p+` `+r+`><p:sldIdLst><p:sldId id="256" r:id="rId1"/></p:sldIdLst></p:presentation>`,
		"ppt/_rels/presentation.xml.rels", `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="`+rel+`slide" Target="slides/slide1.xml"/></Relationships>`,
		"ppt/slides/slide1.xml", slide,
		"ppt/slides/_rels/slide1.xml.rels", `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId2" Type="`+rel+`chart" Target="../charts/chart1.xml"/><Relationship Id="rId3" Type="`+rel+`diagramData" Target="../diagrams/data1.xml"/></Relationships>`,
		"ppt/charts/chart1.xml", chart,
		"ppt/diagrams/data1.xml", data,
	)
	d, err := NewRegistry(DefaultLimits()).Extract(t.Context(), fileOf("g.pptx", pptx))
	if err != nil {
		t.Fatal(err)
	}
	want := "Pump failures per quarter\nNorth site: Q1 12; Q2 7\n\nClose the inlet\nDrain the housing\n\nValve | Torque"
	if got := unitText(d, 0); got != want {
		t.Errorf("got\n%q\nwant\n%q (warnings %q)", got, want, d.Warnings)
	}
}
