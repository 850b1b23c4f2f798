// farmrt: the command-line entry point. farmrt is an MPI program (mpi/):
// `mpirun -n N farmrt scene.yaml` renders across N ranks; plain
// `farmrt scene.yaml` is a one-rank job with the same image.
#include "farm_main.h"

int main(int argc, char** argv) { return farmrt::farm_main(argc, argv); }
