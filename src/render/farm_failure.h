// How the farm ends when something fails: during set-up the processes agree
// (the first failing one prints, every one exits with its code:
// Cluster::agree_on_failure); while rendering the failing process prints and
// takes the job down at once (Cluster::end_job_after_failure).
#pragma once

#include <exception>
#include <string>

namespace farmrt {

// Thrown on the processes that stop because another one failed during
// set-up; that one prints the reason, these exit quietly with its exit code.
struct JobAbandoned {
    int exit_code;
};

// 2 for InputError (bad input), 1 for anything else.
int exit_code_for(std::exception_ptr error);
// "farmrt: error: <who>: what" (`who` empty in a one-process job), printed on stderr.
void print_error(const std::string& who, std::exception_ptr error);

}  // namespace farmrt
