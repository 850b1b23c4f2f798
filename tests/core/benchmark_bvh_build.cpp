// BVH build time for about a million triangles: the committed knot mesh,
// copied with transforms until the count is reached, built with 1, 2, 4, ...
// threads up to all of them. Prints one line per thread count and checks that
// every build gives the same tree. Not a test (timings are not asserted):
// scripts/bench/scenes.sh runs it and results/scenes.md records it.
//   farmrt_bvh_benchmark [MESH.obj] [TRIANGLES] [REPEATS]
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/bvh.h"
#include "core/primitives.h"
#include "core/transform.h"
#include "io/mesh_loader.h"

using namespace farmrt;

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Expected cost of the tree by the surface area heuristic (traversal 1, intersection 1).
double sah_cost(const Bvh& bvh) {
    const double root_area = bvh.nodes[0].bounds.surface_area();
    double cost = 0;
    for (const BvhNode& node : bvh.nodes) {
        const double p = node.bounds.surface_area() / root_area;
        cost += node.is_leaf() ? p * node.count : p;
    }
    return cost;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mesh_path = argc > 1 ? argv[1] : "configs/models/knot.obj";
    const size_t target = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1000000;
    const int repeats = argc > 3 ? std::max(1, std::atoi(argv[3])) : 3;

    auto start = std::chrono::steady_clock::now();
    const MeshData mesh = load_obj_mesh(mesh_path, mesh_path);
    const double load_seconds = seconds_since(start);

    // Copies on a grid, each turned differently, until `target` triangles.
    std::vector<Aabb> bounds;
    bounds.reserve(target);
    for (size_t copy = 0; bounds.size() < target; ++copy) {
        const Transform placement =
            Transform::rotate_y(37.0 * double(copy))
                .then(Transform::translate(Vec3(8.0f * float(copy % 4), 0, 8.0f * float(copy / 4))));
        for (const Triangle& t : mesh.triangles) {
            if (bounds.size() == target) break;
            Aabb box;
            box.expand(placement.point(t.vertex0));
            box.expand(placement.point(t.vertex1));
            box.expand(placement.point(t.vertex2));
            bounds.push_back(box);
        }
    }
    std::printf("mesh %s: %zu triangles, read in %.3f s; building over %zu triangles, median of %d\n",
                mesh_path.c_str(), mesh.triangles.size(), load_seconds, bounds.size(), repeats);
    std::printf("%8s %12s %10s %12s %s\n", "threads", "build_s", "nodes", "sah_cost", "same_tree");

    const int all = omp_get_max_threads();
    Bvh reference;
    bool all_same = true;
    for (int threads = 1;; threads = std::min(all, threads * 2)) {
        omp_set_num_threads(threads);
        std::vector<double> times;
        Bvh bvh;
        for (int r = 0; r < repeats; ++r) {
            start = std::chrono::steady_clock::now();
            bvh = build_bvh(bounds);
            times.push_back(seconds_since(start));
        }
        std::sort(times.begin(), times.end());
        bool same = true;
        if (reference.nodes.empty()) {
            reference = bvh;
        } else {
            same = reference.nodes.size() == bvh.nodes.size() && reference.primitive_order == bvh.primitive_order &&
                   std::memcmp(reference.nodes.data(), bvh.nodes.data(), bvh.nodes.size() * sizeof(BvhNode)) == 0;
        }
        all_same &= same;
        std::printf("%8d %12.4f %10zu %12.2f %s\n", threads, times[times.size() / 2], bvh.nodes.size(), sah_cost(bvh),
                    same ? "yes" : "NO");
        if (threads == all) break;
    }
    return all_same ? 0 : 1;
}
