#include "io/object_loader.h"

#include <cmath>
#include <string>

#include "core/errors.h"
#include "io/image_output.h"

namespace farmrt {

Transform ObjectLoader::load_transform(const Value& value) const {
    require_map(value, {"scale", "rotate_x", "rotate_y", "rotate_z", "translate"});
    Transform transform;
    if (has(value, "scale")) {
        const Value scale = child(value, "scale");
        Vec3 factors;
        if (scale.node.IsSequence()) {
            factors = vector3(scale);
        } else {
            factors = Vec3(float(number(scale)));
        }
        for (int axis = 0; axis < 3; ++axis) {
            if (!(std::fabs(factors[axis]) >= 1e-12f && std::fabs(factors[axis]) <= 1e12f)) {
                fail(scale, "scale factors must be non-zero (and below 1e12 in magnitude)");
            }
        }
        transform = transform.then(Transform::scale(factors.x, factors.y, factors.z));
    }
    if (has(value, "rotate_x")) transform = transform.then(Transform::rotate_x(number(child(value, "rotate_x"))));
    if (has(value, "rotate_y")) transform = transform.then(Transform::rotate_y(number(child(value, "rotate_y"))));
    if (has(value, "rotate_z")) transform = transform.then(Transform::rotate_z(number(child(value, "rotate_z"))));
    if (has(value, "translate")) transform = transform.then(Transform::translate(vector3(child(value, "translate"))));
    return transform;
}

Transform ObjectLoader::object_transform(const Value& object) const {
    return has(object, "transform") ? load_transform(child(object, "transform")) : Transform::identity();
}

void ObjectLoader::add_box(const Vec3& lo, const Vec3& hi, const Transform& transform, uint32_t material,
                           Scene& scene) {
    const Vec3 dx(hi.x - lo.x, 0, 0), dy(0, hi.y - lo.y, 0), dz(0, 0, hi.z - lo.z);
    const Vec3 corners[6] = {Vec3(lo.x, lo.y, hi.z), Vec3(hi.x, lo.y, hi.z), Vec3(hi.x, lo.y, lo.z),
                             Vec3(lo.x, lo.y, lo.z), Vec3(lo.x, hi.y, hi.z), Vec3(lo.x, lo.y, lo.z)};
    const Vec3 edges_u[6] = {dx, -dz, -dx, dz, dx, dx};
    const Vec3 edges_v[6] = {dy, dy, dy, dy, -dz, dz};
    for (int side = 0; side < 6; ++side) {
        scene.quads.push_back(make_quad(transform.point(corners[side]), transform.vector(edges_u[side]),
                                        transform.vector(edges_v[side]), material));
    }
}

void ObjectLoader::load_sphere(const Value& object, Scene& scene) const {
    require_map(object, {"type", "center", "center1", "radius", "material", "transform"});
    Sphere s;
    s.center = vector3(required(object, "center"));
    s.velocity = has(object, "center1") ? vector3(child(object, "center1")) - s.center : Vec3(0.0f);
    s.radius = float(size(required(object, "radius")));
    const Transform transform = object_transform(object);
    s.material = object_material(object, scene);
    double uniform_scale = 1.0;
    if (transform.is_uniform_positive_scale_and_translation(uniform_scale)) {
        // Still a sphere with the same (u, v) orientation: transform it in place.
        const Vec3 center1 = s.center + s.velocity;
        s.center = transform.point(s.center);
        s.velocity = transform.point(center1) - s.center;
        s.radius = float(s.radius * uniform_scale);
        scene.spheres.push_back(s);
        return;
    }
    // Rotated (texture turns with it) or non-uniformly scaled (an ellipsoid):
    // an instance of a one-sphere geometry.
    scene.spheres.push_back(s);
    const uint32_t geometry =
        scene.add_instance_geometry({PrimitiveRef::make(PrimitiveType::Sphere, uint32_t(scene.spheres.size() - 1))});
    scene.add_instance(geometry, transform, s.material);
}

void ObjectLoader::load_quad(const Value& object, Scene& scene) const {
    require_map(object, {"type", "Q", "u", "v", "material", "transform"});
    const Vec3 corner = vector3(required(object, "Q"));
    const Vec3 u = vector3(required(object, "u"));
    const Vec3 v = vector3(required(object, "v"));
    if (!(length_squared(cross(u, v)) > 0)) fail(child(object, "v"), "u and v must not be parallel or zero");
    const Transform transform = object_transform(object);
    // Affine maps keep a parallelogram a parallelogram with the same (a, b).
    scene.quads.push_back(
        make_quad(transform.point(corner), transform.vector(u), transform.vector(v), object_material(object, scene)));
}

void ObjectLoader::load_box(const Value& object, Scene& scene) const {
    require_map(object, {"type", "min", "max", "material", "transform"});
    const Vec3 lo = vector3(required(object, "min"));
    const Value max_value = required(object, "max");
    const Vec3 hi = vector3(max_value);
    if (!(hi.x > lo.x && hi.y > lo.y && hi.z > lo.z)) fail(max_value, "must be greater than min on every axis");
    const Transform transform = object_transform(object);
    add_box(lo, hi, transform, object_material(object, scene), scene);
}

void ObjectLoader::load_triangle(const Value& object, Scene& scene) const {
    require_map(object, {"type", "vertices", "normals", "uvs", "material", "transform"});
    Triangle t{};
    const Value vertices = required(object, "vertices");
    if (!vertices.node.IsSequence() || vertices.node.size() != 3) fail(vertices, "expected 3 vertices");
    Vec3* corners[3] = {&t.vertex0, &t.vertex1, &t.vertex2};
    for (int i = 0; i < 3; ++i) {
        *corners[i] = vector3(Value{vertices.node[i], vertices.path + "[" + std::to_string(i) + "]"});
    }
    if (!(length_squared(cross(t.vertex1 - t.vertex0, t.vertex2 - t.vertex0)) > 0)) {
        fail(vertices, "degenerate triangle (zero area)");
    }
    if (has(object, "normals")) {
        const Value normals = child(object, "normals");
        if (!normals.node.IsSequence() || normals.node.size() != 3) fail(normals, "expected 3 normals");
        Vec3* targets[3] = {&t.normal0, &t.normal1, &t.normal2};
        for (int i = 0; i < 3; ++i) {
            const Value n{normals.node[i], normals.path + "[" + std::to_string(i) + "]"};
            const Vec3 normal = vector3(n);
            if (!(length_squared(normal) > 0)) fail(n, "normal must not be zero");
            *targets[i] = unit_vector(normal);
        }
    }
    for (int i = 0; i < 6; ++i) t.uv[i] = kDefaultTriangleUvs[i];
    if (has(object, "uvs")) {
        const Value uvs = child(object, "uvs");
        if (!uvs.node.IsSequence() || uvs.node.size() != 3) fail(uvs, "expected 3 [u, v] pairs");
        for (int i = 0; i < 3; ++i) {
            const Value pair{uvs.node[i], uvs.path + "[" + std::to_string(i) + "]"};
            if (!pair.node.IsSequence() || pair.node.size() != 2) fail(pair, "expected [u, v]");
            for (int j = 0; j < 2; ++j) {
                t.uv[2 * i + j] = float(number(Value{pair.node[j], pair.path + "[" + std::to_string(j) + "]"}));
            }
        }
    }
    const Transform transform = object_transform(object);
    t.material = object_material(object, scene);
    scene.triangles.push_back(transformed_triangle(t, transform));
}

MeshData ObjectLoader::read_mesh(const Value& file, const std::string& path) const {
    const std::string extension = file_extension(path);
    if (extension != ".obj" && is_model_file(path)) {
        fail(file, "type: mesh reads OBJ files; a " + extension + " file is placed with {type: model, file: ...}");
    }
    try {
        return load_obj_mesh(path, path);
    } catch (const InputError& e) {
        fail(file, e.what());
    }
}

void ObjectLoader::check_triangle_capacity(const Value& where, const Scene& scene, size_t adding) const {
    if (scene.triangles.size() + adding >= kMaxPrimitivesPerType) fail(where, "too many triangles in the scene");
}

void ObjectLoader::load_mesh(const Value& object, Scene& scene) {
    require_map(object, {"type", "file", "material", "transform"});
    const Value file = required(object, "file");
    const std::string path = resolve_path(scalar_text(file, "a file name"));
    const Transform transform = object_transform(object);
    const uint32_t material = object_material(object, scene);
    // Every triangle takes the object's material (an instance's hits take it anyway).
    const auto every_triangle = [material](uint32_t) { return material; };
    if (mesh_uses_[path] <= 1) {
        const MeshData mesh = read_mesh(file, path);
        check_triangle_capacity(file, scene, mesh.triangles.size());
        append_triangles(mesh.triangles, mesh.attributes, transform, every_triangle, scene);
        return;
    }
    auto found = mesh_geometry_.find(path);
    if (found == mesh_geometry_.end()) {
        const MeshData mesh = read_mesh(file, path);
        check_triangle_capacity(file, scene, mesh.triangles.size());
        const std::vector<PrimitiveRef> refs =
            append_triangles(mesh.triangles, mesh.attributes, Transform::identity(), every_triangle, scene);
        found = mesh_geometry_.emplace(path, scene.add_instance_geometry(refs)).first;
    }
    if (scene.instance_count() + 1 >= kMaxPrimitivesPerType) fail(object, "too many instances in the scene");
    scene.add_instance(found->second, transform, material);
}

void ObjectLoader::load_model_object(const Value& object, Scene& scene, SceneDescription& description) {
    require_map(object, {"type", "file", "transform", "material"});
    const Value file = required(object, "file");
    const std::string path = resolve_path(scalar_text(file, "a file name"));
    const Transform transform = object_transform(object);
    const uint32_t material = has(object, "material") ? object_material(object, scene) : kGeometryMaterial;
    if (!is_model_file(path)) fail(file, "not a model farmrt reads (expected " + model_extensions_text() + ")");
    // Loaded once per path however many objects place it; placed more
    // than once, its geometry is stored once and instanced.
    auto cached = models_.find(path);
    try {
        if (cached == models_.end()) cached = models_.emplace(path, LoadedModel{load_model(path, path), {}}).first;
        const ModelData& model = cached->second.model;
        description.model_bounds.expand(
            model_uses_[path] > 1 ? place_shared_model(model, transform, scene, path, material, cached->second.shared)
                                  : add_model_to_scene(model, transform, scene, path, material));
    } catch (const InputError& e) {
        fail(file, e.what());
    }
    LoadedModel& loaded = cached->second;
    use_model_camera(loaded.model, transform, description);
    if (!loaded.warned) {  // once per file, however many objects place it
        description.warnings.insert(description.warnings.end(), loaded.model.warnings.begin(),
                                    loaded.model.warnings.end());
        loaded.warned = true;
    }
}

void ObjectLoader::use_model_camera(const ModelData& model, const Transform& transform, SceneDescription& description) {
    if (model.camera && !description.model_camera) {
        description.model_camera = model.camera;
        description.model_camera->settings.lookfrom = transform.point(model.camera->settings.lookfrom);
        description.model_camera->settings.lookat = transform.point(model.camera->settings.lookat);
        description.model_camera->settings.vup = transform.vector(model.camera->settings.vup);
    }
}

void ObjectLoader::count_file_uses(const YAML::Node& objects) {
    for (size_t i = 0; i < objects.size(); ++i) {
        const YAML::Node object = objects[i];
        if (!object.IsMap() || !object["type"] || !object["type"].IsScalar() || !object["file"] ||
            !object["file"].IsScalar()) {
            continue;
        }
        const std::string type = object["type"].Scalar();
        if (type == "mesh") ++mesh_uses_[resolve_path(object["file"].Scalar())];
        if (type == "model") ++model_uses_[resolve_path(object["file"].Scalar())];
    }
}

void ObjectLoader::load_object(const Value& object, SceneDescription& description) {
    Scene& scene = description.scene;
    if (!object.node.IsMap()) fail(object, "expected an object mapping with a 'type'");
    const std::string type = choice(required(object, "type"), {"sphere", "quad", "box", "triangle", "mesh", "model"});
    if (type == "sphere") {
        load_sphere(object, scene);
    } else if (type == "quad") {
        load_quad(object, scene);
    } else if (type == "box") {
        load_box(object, scene);
    } else if (type == "triangle") {
        load_triangle(object, scene);
    } else if (type == "model") {
        load_model_object(object, scene, description);
    } else {
        load_mesh(object, scene);
    }
}

}  // namespace farmrt
