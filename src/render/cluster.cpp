#include "render/cluster.h"

#include <unistd.h>

#include <cstdlib>

#include "core/errors.h"
#include "render/farm_failure.h"
#include "render/farm_workers.h"

namespace farmrt {

OneProcess::OneProcess() {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) == 0) host_ = name;
}

void OneProcess::agree_on_failure(std::exception_ptr local_error) {
    if (local_error) std::rethrow_exception(local_error);
}

void OneProcess::end_job_after_failure(std::exception_ptr error) {
    print_error(who(), error);
    std::_Exit(exit_code_for(error));
}

std::unique_ptr<WorkerSet> OneProcess::other_processes(RankReport&, double, int) { return nullptr; }

void OneProcess::serve(const RenderContext&, const SceneDescription&, RankReport&, double, TimePoint&, TimePoint&) {
    throw RenderError("a one-process job has no process other than 0 to serve");
}

}  // namespace farmrt
