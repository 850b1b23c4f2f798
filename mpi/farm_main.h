// farmrt's entry point: always an MPI program. Under mpirun every rank runs
// this; without mpirun it is a one-rank job (MPI singleton) that renders the
// same bytes.
#pragma once

namespace farmrt {

int farm_main(int argc, char** argv);

}  // namespace farmrt
