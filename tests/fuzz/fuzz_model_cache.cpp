// A glTF model placed by several objects of a scene: loaded once, its
// geometry stored once and instanced by every placement (the scene loader's
// model cache, io/model_loader.h SharedModel). The first byte gives the
// number of placements (1-8) and whether they replace the model's
// materials; the rest is the glTF file.
#include "fuzz_input.h"
#include "io/scene_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const int placements = 1 + (data[0] & 7);
    const bool clay = (data[0] & 8) != 0;
    const std::string path = farmrt::fuzz::write_input(data + 1, size - 1, "placed.gltf");
    std::string text =
        "image: {width: 8, height: 8, output: o.ppm}\nsampling: {spp: 1}\ncamera: {lookfrom: [0, 0, 5], lookat: [0, 0, "
        "0]}\n"
        "materials: {clay: {type: lambertian, albedo: [0.5, 0.5, 0.5]}}\nobjects:\n";
    for (int i = 0; i < placements; ++i) {
        text += "  - {type: model, file: '" + path + "', transform: {translate: [" + std::to_string(i) + ", 0, 0]}" +
                (clay && i % 2 ? ", material: clay" : "") + "}\n";
    }
    return farmrt::fuzz::expect_farmrt_errors_only([&] {
        farmrt::SceneDescription description = farmrt::load_scene_text(text, "fuzz.yaml", "/nonexistent", {});
        description.scene.build_acceleration();
    });
}
