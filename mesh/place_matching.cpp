#include "mesh/place_matching.hpp"

#include <vtkDoubleArray.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkSmartPointer.h>
#include <vtkStaticPointLocator.h>

namespace gpufem {

std::vector<long long> closest_places_within(const std::vector<double>& from, const std::vector<double>& to,
                                             double tolerance)
{
    const long long n = static_cast<long long>(from.size() / 3);
    std::vector<long long> match(static_cast<std::size_t>(n), -1);
    if (to.size() < 3 || n == 0) return match;
    auto coordinates = vtkSmartPointer<vtkDoubleArray>::New();
    coordinates->SetNumberOfComponents(3);
    // A view of `to` (save = 1: VTK does not free it).
    coordinates->SetArray(const_cast<double*>(to.data()), static_cast<vtkIdType>(to.size() / 3 * 3), 1);
    auto points = vtkSmartPointer<vtkPoints>::New();
    points->SetData(coordinates);
    auto cloud = vtkSmartPointer<vtkPolyData>::New();
    cloud->SetPoints(points);
    auto locator = vtkSmartPointer<vtkStaticPointLocator>::New();
    locator->SetDataSet(cloud);
    locator->BuildLocator();  // once, on this thread: the queries are then thread-safe
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; ++i) {
        double dist2 = 0;
        match[static_cast<std::size_t>(i)] = locator->FindClosestPointWithinRadius(tolerance, &from[3 * i], dist2);
    }
    return match;
}

}  // namespace gpufem
