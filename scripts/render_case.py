#!/usr/bin/python3
"""Renders a gpufem result (result.vtu, a sweep's result.pvd, or the output folder) to a PNG.

    scripts/render_case.py cases/examples/01_poisson_square -o square.png
    scripts/render_case.py OUT/result.pvd --field error --clip

Uses VTK's Python from Debian (python3-vtk9) and draws off screen: without a display it runs
itself again under xvfb-run (package xvfb). 2D results are seen from above, 3D results from a
corner (--clip cuts away the half x > the middle to show the inside). Lagrange cells of degree
2 and more are drawn curved (their faces subdivided). A sweep's result.pvd shows its last point
unless --point says which.
"""
import argparse
import os
import shutil
import sys
import xml.etree.ElementTree as ElementTree

# Colours of the map (the "viridis" control points): low to high.
COLOUR_MAP = [(0.267, 0.005, 0.329), (0.283, 0.141, 0.458), (0.254, 0.265, 0.530),
              (0.207, 0.372, 0.553), (0.164, 0.471, 0.558), (0.128, 0.567, 0.551),
              (0.135, 0.659, 0.518), (0.267, 0.749, 0.441), (0.478, 0.821, 0.318),
              (0.741, 0.873, 0.150), (0.993, 0.906, 0.144)]


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("result", help="result.vtu, result.pvd, or a folder holding one of them")
    parser.add_argument("-o", "--output", default=None, help="PNG file (default: beside the result)")
    parser.add_argument("--field", default="u", help="point or cell field to colour by (default u)")
    parser.add_argument("--point", type=int, default=-1,
                        help="which entry of a result.pvd, from 0 (default: the last)")
    parser.add_argument("--size", default="560x350", help="image size WIDTHxHEIGHT (default 560x350)")
    parser.add_argument("--clip", action="store_true", help="3D: cut away the half x > the middle")
    parser.add_argument("--edges", action="store_true", help="draw the cells' edges")
    parser.add_argument("--title", default=None, help="a line of text above the picture")
    return parser.parse_args()


def find_vtu(path, point):
    """The .vtu file a path names: itself, a folder's result.vtu or result.pvd, or a .pvd's entry."""
    if os.path.isdir(path):
        for name in ("result.vtu", "result.pvd"):
            if os.path.exists(os.path.join(path, name)):
                return find_vtu(os.path.join(path, name), point)
        sys.exit("render_case: %s holds neither result.vtu nor result.pvd" % path)
    if path.endswith(".pvd"):
        entries = [e.get("file") for e in ElementTree.parse(path).getroot().iter("DataSet")]
        if not entries:
            sys.exit("render_case: %s lists no data set" % path)
        return os.path.join(os.path.dirname(path), entries[point])
    if not os.path.exists(path):
        sys.exit("render_case: %s does not exist" % path)
    return path


def ensure_display():
    """Runs this script again under xvfb-run when there is no X display (VTK's windows need one)."""
    if os.environ.get("DISPLAY") or os.environ.get("GPUFEM_RENDER_UNDER_XVFB"):
        return
    if shutil.which("xvfb-run") is None:
        sys.exit("render_case: no display and no xvfb-run: install the package xvfb "
                 "(apt install xvfb), or run with DISPLAY set")
    os.environ["GPUFEM_RENDER_UNDER_XVFB"] = "1"
    command = ["xvfb-run", "-a", "-s", "-screen 0 1600x1200x24", sys.executable] + sys.argv
    os.execvp("xvfb-run", command)


def colour_table(vtk, low, high):
    table = vtk.vtkColorTransferFunction()
    for i, (r, g, b) in enumerate(COLOUR_MAP):
        table.AddRGBPoint(low + (high - low) * i / (len(COLOUR_MAP) - 1), r, g, b)
    return table


def render(args, vtu):
    try:
        import vtk
    except ImportError:
        sys.exit("render_case: VTK's Python is missing: apt install python3-vtk9")
    reader = vtk.vtkXMLUnstructuredGridReader()
    reader.SetFileName(vtu)
    reader.Update()
    grid = reader.GetOutput()
    if grid.GetNumberOfCells() == 0:
        sys.exit("render_case: %s holds no cells" % vtu)
    on_points = grid.GetPointData().GetArray(args.field) is not None
    data = grid.GetPointData() if on_points else grid.GetCellData()
    if data.GetArray(args.field) is None:
        sys.exit("render_case: %s has no field '%s'" % (vtu, args.field))
    low, high = data.GetArray(args.field).GetRange()
    if high <= low:
        high = low + 1.0

    bounds = grid.GetBounds()
    flat = bounds[5] - bounds[4] <= 1e-12 * max(1.0, bounds[1] - bounds[0], bounds[3] - bounds[2])
    source = reader.GetOutputPort()
    width, height = bounds[1] - bounds[0], bounds[3] - bounds[2]
    if flat and height > 0 and width > 8 * height:
        # A long thin domain (a channel): its first 8 heights, or it would be a line.
        plane = vtk.vtkPlane()
        plane.SetOrigin(bounds[0] + 8 * height, 0, 0)
        plane.SetNormal(-1, 0, 0)
        cut = vtk.vtkTableBasedClipDataSet()
        cut.SetInputConnection(source)
        cut.SetClipFunction(plane)
        source = cut.GetOutputPort()
        print("render_case: x from %.3g to %.3g of %.3g to %.3g shown" % (bounds[0], bounds[0] + 8 * height,
                                                                         bounds[0], bounds[1]))
    if args.clip and not flat:
        plane = vtk.vtkPlane()
        plane.SetOrigin((bounds[0] + bounds[1]) / 2, 0, 0)
        plane.SetNormal(-1, 0, 0)
        clip = vtk.vtkTableBasedClipDataSet()
        clip.SetInputConnection(source)
        clip.SetClipFunction(plane)
        source = clip.GetOutputPort()
    surface = vtk.vtkDataSetSurfaceFilter()
    surface.SetInputConnection(source)
    surface.SetNonlinearSubdivisionLevel(3)

    mapper = vtk.vtkDataSetMapper()
    mapper.SetInputConnection(surface.GetOutputPort())
    if on_points:
        mapper.SetScalarModeToUsePointFieldData()
    else:
        mapper.SetScalarModeToUseCellFieldData()
    mapper.SelectColorArray(args.field)
    mapper.SetLookupTable(colour_table(vtk, low, high))
    mapper.SetScalarRange(low, high)
    mapper.ScalarVisibilityOn()
    actor = vtk.vtkActor()
    actor.SetMapper(mapper)
    if flat:
        actor.GetProperty().LightingOff()

    renderer = vtk.vtkRenderer()
    renderer.SetBackground(1, 1, 1)
    renderer.AddActor(actor)
    if args.edges:
        linear = vtk.vtkDataSetSurfaceFilter()
        linear.SetInputConnection(source)
        edges = vtk.vtkExtractEdges()
        edges.SetInputConnection(linear.GetOutputPort())
        edge_mapper = vtk.vtkPolyDataMapper()
        edge_mapper.SetInputConnection(edges.GetOutputPort())
        edge_mapper.ScalarVisibilityOff()
        edge_actor = vtk.vtkActor()
        edge_actor.SetMapper(edge_mapper)
        edge_actor.GetProperty().SetColor(0.15, 0.15, 0.15)
        edge_actor.GetProperty().SetOpacity(0.35)
        renderer.AddActor(edge_actor)

    bar = vtk.vtkScalarBarActor()
    bar.SetLookupTable(mapper.GetLookupTable())
    bar.SetTitle(args.field)
    bar.SetNumberOfLabels(5)
    bar.SetWidth(0.3)
    bar.SetHeight(0.7)
    bar.SetPosition(0.05, 0.15)
    bar.SetLabelFormat("%.3g")
    for text in (bar.GetTitleTextProperty(), bar.GetLabelTextProperty()):
        text.SetColor(0.1, 0.1, 0.1)
        text.ShadowOff()
        text.ItalicOff()
        text.SetFontSize(12)
    bar.UnconstrainedFontSizeOn()
    bar.SetVerticalTitleSeparation(8)
    # The colour bar in a strip of its own on the right.
    bar_renderer = vtk.vtkRenderer()
    bar_renderer.SetBackground(1, 1, 1)
    bar_renderer.SetViewport(0.8, 0.0, 1.0, 1.0)
    bar_renderer.AddActor2D(bar)
    if args.title:
        title = vtk.vtkTextActor()
        title.SetInput(args.title)
        title.GetTextProperty().SetColor(0.1, 0.1, 0.1)
        title.GetTextProperty().SetFontSize(16)
        title.SetPosition(10, 10)
        renderer.AddActor2D(title)

    camera = renderer.GetActiveCamera()
    if flat:
        camera.ParallelProjectionOn()
    else:
        camera.SetPosition(1.3, -1.6, 1.0)
        camera.SetViewUp(0, 0, 1)
    renderer.SetViewport(0.0, 0.0, 0.8, 1.0)
    renderer.ResetCamera()
    camera.Zoom(1.15 if flat else 0.95)

    width, height = (int(v) for v in args.size.lower().split("x"))
    window = vtk.vtkRenderWindow()
    window.SetOffScreenRendering(1)
    window.SetSize(width, height)
    window.AddRenderer(renderer)
    window.AddRenderer(bar_renderer)
    window.Render()
    grab = vtk.vtkWindowToImageFilter()
    grab.SetInput(window)
    grab.ReadFrontBufferOff()
    grab.Update()
    writer = vtk.vtkPNGWriter()
    writer.SetFileName(args.output)
    writer.SetInputConnection(grab.GetOutputPort())
    writer.Write()
    print("render_case: %s (%s, %s from %.3g to %.3g)" % (args.output, os.path.relpath(vtu), args.field,
                                                           low, high))


def main():
    args = parse_arguments()
    vtu = find_vtu(args.result, args.point)
    if args.output is None:
        args.output = os.path.splitext(vtu)[0] + ".png"
    ensure_display()
    render(args, vtu)


if __name__ == "__main__":
    main()
