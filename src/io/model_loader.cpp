#include "io/model_loader.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "core/errors.h"
#include "io/image_output.h"
#include "io/mesh_loader.h"
#include "io/model_formats.h"
#include "io/texture_loader.h"

namespace farmrt {

Material default_model_material(ModelData& model, const Color& base_color, float metallic, float roughness) {
    Material m;
    m.type = MaterialType::Principled;
    m.albedo_texture = model.add_constant(base_color);
    m.metallic_roughness_texture = model.add_constant(Color(0.0f, roughness, metallic));
    m.emission_texture = kNoTexture;
    m.ior = 1.5f;
    return m;
}

// ---- OBJ with MTL ---------------------------------------------------------------------------

// An MTL material as the principled one. Kd (or map_Kd) is the base colour;
// without a specular colour (Ks 0, or illum 1) the surface is purely
// diffuse (index 1: no Fresnel reflection); Ns gives the roughness by the
// Phong-to-Beckmann correspondence alpha^2 = 2 / (Ns + 2), unless Pr is
// given; Pm gives the metallic; Ke (or map_Ke) the emission; d < 1 (or Tr),
// and illum 4, 6, 7 or 9, transmission with Ni.
// `image_textures`: the textures read so far, by path (an image that many
// materials use is read once).
Material principled_from_mtl(const ObjMaterial& mtl, const std::filesystem::path& directory, ModelData& model,
                             const std::string& display_path, std::map<std::string, uint32_t>& image_textures) {
    // (illum 0, tinyobjloader's value where the file gives none, counts as 2.)
    const bool specular = mtl.illum != 1 && (mtl.specular.x > 0 || mtl.specular.y > 0 || mtl.specular.z > 0);
    const float alpha = std::sqrt(2.0f / (mtl.shininess + 2.0f));
    const float roughness = mtl.roughness > 0 ? std::min(1.0f, mtl.roughness) : std::min(1.0f, std::sqrt(alpha));
    Material m = default_model_material(model, Color(0.0f), std::min(1.0f, mtl.metallic), roughness);
    const auto image = [&](std::string name, const char* key) {
        // Files written on Windows name their textures with backslashes.
        std::replace(name.begin(), name.end(), '\\', '/');
        const std::string path = (directory / name).lexically_normal().string();
        const auto cached = image_textures.find(path);
        if (cached != image_textures.end()) return cached->second;
        Texture texture;
        try {
            texture = load_image_texture(path, path, model.texture_pixels);
        } catch (const InputError& e) {
            throw InputError(display_path + ": material '" + mtl.name + "': " + key + ": " + e.what());
        }
        texture.repeat = 1;
        return image_textures[path] = model.add_texture(texture);
    };
    const Color clamped(std::min(1.0f, mtl.diffuse.x), std::min(1.0f, mtl.diffuse.y), std::min(1.0f, mtl.diffuse.z));
    m.albedo_texture = mtl.diffuse_texture.empty() ? model.add_constant(clamped) : image(mtl.diffuse_texture, "map_Kd");
    m.ior = specular || mtl.metallic > 0 ? std::clamp(mtl.ior > 1.0f ? mtl.ior : 1.5f, 1.0f, 10.0f) : 1.0f;
    const bool glass = mtl.illum == 4 || mtl.illum == 6 || mtl.illum == 7 || mtl.illum == 9;
    if (glass || mtl.dissolve < 1.0f) {
        m.transmission = glass ? 1.0f : std::clamp(1.0f - mtl.dissolve, 0.0f, 1.0f);
        m.ior = std::clamp(mtl.ior > 1.0f ? mtl.ior : 1.5f, 1.0f, 10.0f);
    }
    if (!mtl.emission_texture.empty()) {
        m.emission_texture = image(mtl.emission_texture, "map_Ke");
    } else if (mtl.emission.x > 0 || mtl.emission.y > 0 || mtl.emission.z > 0) {
        m.emission_texture = model.add_constant(mtl.emission);
    }
    return m;
}

ModelData load_obj_model(const std::string& path, const std::string& display_path) {
    MeshData mesh = load_obj_model_mesh(path, display_path);
    ModelData model;
    model.warnings = std::move(mesh.warnings);
    const std::filesystem::path directory = std::filesystem::path(path).parent_path();
    std::map<std::string, uint32_t> image_textures;
    for (const ObjMaterial& mtl : mesh.materials) {
        model.materials.push_back(principled_from_mtl(mtl, directory, model, display_path, image_textures));
    }
    uint32_t fallback = kNoObjMaterial;
    for (Triangle& t : mesh.triangles) {
        if (t.material == kNoObjMaterial) {
            if (fallback == kNoObjMaterial) {
                // Faces without usemtl: a grey diffuse, as other renderers show them.
                Material grey = default_model_material(model, Color(0.8f), 0.0f, 1.0f);
                grey.ior = 1.0f;
                model.materials.push_back(grey);
                fallback = uint32_t(model.materials.size() - 1);
            }
            t.material = fallback;
        }
    }
    model.meshes.push_back(ModelMesh{std::move(mesh.triangles), std::move(mesh.attributes)});
    model.placements.push_back(ModelPlacement{0, Transform::identity()});
    return model;
}

// ---- any model --------------------------------------------------------------------------------

bool is_model_file(const std::string& path) {
    const std::string extension = file_extension(path);
    return extension == ".gltf" || extension == ".glb" || extension == ".obj" || extension == ".ply" ||
           (FARMRT_HAVE_ASSIMP && is_assimp_model_file(path));
}

ModelData load_model(const std::string& path, const std::string& display_path) {
    const std::string extension = file_extension(path);
    if (extension == ".gltf" || extension == ".glb") return load_gltf_model(path, display_path);
    if (extension == ".obj") return load_obj_model(path, display_path);
    if (extension == ".ply") return load_ply_model(path, display_path);
    if (is_assimp_model_file(path)) {
#if FARMRT_HAVE_ASSIMP
        return load_assimp_model(path, display_path);
#else
        throw InputError(display_path + ": " + extension +
                         " models are read through assimp, which this build of farmrt was made without");
#endif
    }
    throw InputError(display_path + ": not a model farmrt reads (expected " + model_extensions_text() + ")");
}

bool is_assimp_model_file(const std::string& path) {
    const std::string extension = file_extension(path);
    return extension == ".stl" || extension == ".dae" || extension == ".zae" || extension == ".fbx" ||
           extension == ".3ds";
}

std::string model_extensions_text() {
    return FARMRT_HAVE_ASSIMP ? ".gltf, .glb, .obj, .ply, .stl, .dae, .zae, .fbx, .3ds" : ".gltf, .glb, .obj, .ply";
}

Triangle transformed_triangle(Triangle t, const Transform& transform) {
    if (transform.is_identity()) return t;
    t.vertex0 = transform.point(t.vertex0);
    t.vertex1 = transform.point(t.vertex1);
    t.vertex2 = transform.point(t.vertex2);
    if (length_squared(t.normal0) > 0) {
        t.normal0 = transform.normal(t.normal0);
        t.normal1 = transform.normal(t.normal1);
        t.normal2 = transform.normal(t.normal2);
    }
    return t;
}

std::vector<PrimitiveRef> append_triangles(const std::vector<Triangle>& triangles,
                                           const std::vector<TriangleAttributes>& attributes,
                                           const Transform& transform,
                                           const std::function<uint32_t(uint32_t)>& material_of, Scene& scene) {
    const uint32_t attribute_base = uint32_t(scene.triangle_attributes.size());
    for (TriangleAttributes a : attributes) {
        if (!transform.is_identity()) {
            for (Vec3& tangent : a.tangent) tangent = transform.vector(tangent);
        }
        scene.triangle_attributes.push_back(a);
    }
    std::vector<PrimitiveRef> refs;
    refs.reserve(triangles.size());
    scene.triangles.reserve(scene.triangles.size() + triangles.size());
    for (Triangle t : triangles) {
        t.material = material_of(t.material);
        if (t.attributes != kNoAttributes) t.attributes += attribute_base;
        refs.push_back(PrimitiveRef::make(PrimitiveType::Triangle, uint32_t(scene.triangles.size())));
        scene.triangles.push_back(transformed_triangle(t, transform));
    }
    return refs;
}

namespace {

// The model's textures and materials appended to the scene's, their indices
// moved past the scene's own; returns the index of its first material.
uint32_t add_model_materials(const ModelData& model, Scene& scene) {
    const uint32_t texture_base = uint32_t(scene.textures.size());
    const uint32_t texel_base = uint32_t(scene.texture_pixels.size() / 3);
    for (Texture t : model.textures) {
        if (t.type == TextureType::Image) t.image_offset += texel_base;
        scene.textures.push_back(t);
    }
    scene.texture_pixels.insert(scene.texture_pixels.end(), model.texture_pixels.begin(), model.texture_pixels.end());
    const uint32_t material_base = uint32_t(scene.materials.size());
    for (Material m : model.materials) {
        m.albedo_texture += texture_base;
        m.metallic_roughness_texture += texture_base;
        if (m.emission_texture != kNoTexture) m.emission_texture += texture_base;
        if (m.normal_texture != kNoTexture) m.normal_texture += texture_base;
        if (m.alpha_texture != kNoTexture) m.alpha_texture += texture_base;
        scene.materials.push_back(m);
    }
    return material_base;
}

void add_model_lights(const ModelData& model, const Transform& world_from_model, Scene& scene) {
    for (Light light : model.lights) {
        light.position = world_from_model.point(light.position);
        const Vec3 direction = world_from_model.vector(light.direction);
        if (!(length_squared(direction) > 0)) continue;
        light.direction = unit_vector(direction);
        scene.punctual_lights.push_back(light);
    }
}

void expand_bounds(Aabb& bounds, const std::vector<Triangle>& triangles, const Transform& world_from_mesh) {
    for (const Triangle& t : triangles) {
        for (const Vec3& v : {t.vertex0, t.vertex1, t.vertex2}) bounds.expand(world_from_mesh.point(v));
    }
}

}  // namespace

Aabb add_model_to_scene(const ModelData& model, const Transform& world_from_model, Scene& scene,
                        const std::string& display_path, uint32_t material) {
    const uint32_t material_base = add_model_materials(model, scene);
    const auto scene_material = [&](uint32_t model_material) {
        return material == kGeometryMaterial ? model_material + material_base : material;
    };
    std::vector<size_t> uses(model.meshes.size(), 0);
    size_t adding = 0;
    for (const ModelPlacement& p : model.placements) {
        if (uses[p.mesh]++ == 0) adding += model.meshes[p.mesh].triangles.size();  // stored once, or baked once
    }
    if (adding + scene.triangles.size() >= kMaxPrimitivesPerType) {
        throw InputError(display_path + ": too many triangles (" + std::to_string(adding) + ")");
    }
    Aabb bounds;
    std::vector<int64_t> geometry(model.meshes.size(), -1);
    for (const ModelPlacement& p : model.placements) {
        const Transform world_from_mesh = p.model_from_mesh.then(world_from_model);
        if (!(std::fabs(world_from_mesh.determinant()) > 0)) continue;  // scaled to nothing: hidden
        const std::vector<Triangle>& triangles = model.meshes[p.mesh].triangles;
        expand_bounds(bounds, triangles, world_from_mesh);
        const std::vector<TriangleAttributes>& attributes = model.meshes[p.mesh].attributes;
        if (uses[p.mesh] == 1) {
            append_triangles(triangles, attributes, world_from_mesh, scene_material, scene);
            continue;
        }
        if (geometry[p.mesh] < 0) {
            geometry[p.mesh] = scene.add_instance_geometry(
                append_triangles(triangles, attributes, Transform::identity(), scene_material, scene));
        }
        if (scene.instance_count() + 1 >= kMaxPrimitivesPerType)
            throw InputError(display_path + ": too many instances");
        scene.add_instance(uint32_t(geometry[p.mesh]), world_from_mesh, material);
    }
    add_model_lights(model, world_from_model, scene);
    return bounds;
}

Aabb place_shared_model(const ModelData& model, const Transform& world_from_model, Scene& scene,
                        const std::string& display_path, uint32_t material, SharedModel& shared) {
    if (!shared.stored) {
        size_t adding = 0;
        for (const ModelMesh& mesh : model.meshes) adding += mesh.triangles.size();
        if (adding + scene.triangles.size() >= kMaxPrimitivesPerType) {
            throw InputError(display_path + ": too many triangles (" + std::to_string(adding) + ")");
        }
        shared.material_base = add_model_materials(model, scene);
        const uint32_t material_base = shared.material_base;
        const auto scene_material = [material_base](uint32_t model_material) { return model_material + material_base; };
        for (const ModelMesh& mesh : model.meshes) {
            shared.geometry.push_back(scene.add_instance_geometry(
                append_triangles(mesh.triangles, mesh.attributes, Transform::identity(), scene_material, scene)));
            shared.mesh_bounds.emplace_back();
            expand_bounds(shared.mesh_bounds.back(), mesh.triangles, Transform::identity());
        }
        shared.stored = true;
    }
    Aabb bounds;
    for (const ModelPlacement& p : model.placements) {
        const Transform world_from_mesh = p.model_from_mesh.then(world_from_model);
        if (!(std::fabs(world_from_mesh.determinant()) > 0)) continue;  // scaled to nothing: hidden
        // The corners of the mesh's box: 8 points per placement instead of
        // every vertex.
        const Aabb& mesh_bounds = shared.mesh_bounds[p.mesh];
        if (!mesh_bounds.empty()) {
            for (int corner = 0; corner < 8; ++corner) {
                bounds.expand(world_from_mesh.point(Vec3(corner & 1 ? mesh_bounds.upper.x : mesh_bounds.lower.x,
                                                         corner & 2 ? mesh_bounds.upper.y : mesh_bounds.lower.y,
                                                         corner & 4 ? mesh_bounds.upper.z : mesh_bounds.lower.z)));
            }
        }
        if (scene.instance_count() + 1 >= kMaxPrimitivesPerType)
            throw InputError(display_path + ": too many instances");
        scene.add_instance(shared.geometry[p.mesh], world_from_mesh, material);
    }
    add_model_lights(model, world_from_model, scene);
    return bounds;
}

CameraSettings framing_camera(const Aabb& bounds, double vfov_degrees, double aspect_ratio) {
    CameraSettings camera;
    const Vec3 center = bounds.empty() ? Vec3(0.0f) : bounds.centroid();
    const double radius = bounds.empty() ? 1.0 : std::max(1e-6, 0.5 * double(length(bounds.upper - bounds.lower)));
    // The narrower of the two fields of view frames the bounding sphere: in a
    // portrait image that is the horizontal one.
    const double half_vertical = 0.5 * vfov_degrees * M_PI / 180.0;
    const double half_horizontal = std::atan(std::tan(half_vertical) * (aspect_ratio > 0 ? aspect_ratio : 1.0));
    const double distance = 1.1 * radius / std::sin(std::min(half_vertical, half_horizontal));
    camera.lookat = center;
    camera.lookfrom = center + float(distance) * unit_vector(Vec3(0.45f, 0.35f, 1.0f));
    camera.vup = Vec3(0, 1, 0);
    camera.vfov = vfov_degrees;
    camera.focus_dist = distance;
    return camera;
}

}  // namespace farmrt
