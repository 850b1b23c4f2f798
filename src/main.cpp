// farmrt: the command-line entry point. Everything it does lives in the library.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "command_line.h"
#include "errors.h"
#include "render_job.h"
#include "version.h"

int main(int argc, char** argv) {
    using namespace farmrt;
    try {
        const CommandLine command_line = parse_command_line(std::vector<std::string>(argv + 1, argv + argc));
        if (command_line.show_help) {
            std::fputs(usage_text().c_str(), stdout);
            return 0;
        }
        if (command_line.show_version) {
            std::printf("%s %s\n", kSoftwareName, kVersion);
            return 0;
        }
        return run_render_job(command_line);
    } catch (const InputError& e) {
        std::fprintf(stderr, "farmrt: error: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "farmrt: error: %s\n", e.what());
        return 1;
    }
}
