#include "mpi/farm_messages.h"

#include <algorithm>

namespace farmrt {

RankAbility ability_of(const WorkRequest& request) {
    RankAbility ability;
    ability.threads = request.threads;
    ability.thread_equivalents = request.thread_equivalents;
    ability.slots = request.slots;
    ability.min_band_items = request.min_band_items;
    ability.item_is_sample = request.item_is_sample != 0;
    return ability;
}

void describe_renderer(WorkRequest& request, const BandRenderer& renderer) {
    const RankAbility ability = ability_of(renderer);
    request.threads = ability.threads;
    request.thread_equivalents = ability.thread_equivalents;
    request.slots = ability.slots;
    request.min_band_items = ability.min_band_items;
    request.item_is_sample = ability.item_is_sample ? 1 : 0;
    request.peak_resident_bytes = peak_resident_bytes();
    request.gpu_memory_used_bytes = renderer.gpu_memory_used_bytes();
    request.has_gpu = renderer.has_gpu() ? 1 : 0;
}

RankMemory memory_of(int rank, const WorkRequest& request) {
    return RankMemory{rank, request.peak_resident_bytes, request.has_gpu != 0, request.gpu_memory_used_bytes};
}

int count_of(RowRange rows, size_t row_floats) { return int(size_t(rows.count()) * row_floats); }

void OperationSet::add(MPI_Request request, Operation operation) {
    requests_.push_back(request);
    operations_.push_back(std::move(operation));
}

namespace {

MPI_Datatype type_of(Operation::Kind kind) {
    switch (kind) {
    case Operation::Kind::ResultReceive:
    case Operation::Kind::WorkSumsReceive: return MPI_FLOAT;
    default: return MPI_BYTE;
    }
}

}  // namespace

std::vector<Operation> OperationSet::test(MpiClock& clock) {
    std::vector<Operation> completed;
    if (requests_.empty()) return completed;
    int count = 0;
    indices_.resize(requests_.size());
    statuses_.resize(requests_.size());
    {
        MpiClock::Scope scope(clock);
        check_mpi(MPI_Testsome(int(requests_.size()), requests_.data(), &count, indices_.data(), statuses_.data()),
                  "MPI_Testsome");
    }
    if (count == MPI_UNDEFINED || count == 0) return completed;
    for (int i = 0; i < count; ++i) {
        Operation& operation = operations_[size_t(indices_[size_t(i)])];
        if (operation.kind != Operation::Kind::Send) {
            MPI_Get_count(&statuses_[size_t(i)], type_of(operation.kind), &operation.received);
        }
        completed.push_back(std::move(operation));
    }
    compact();
    return completed;
}

void OperationSet::cancel(Operation::Kind kind, MpiClock& clock) {
    {
        MpiClock::Scope scope(clock);
        for (size_t i = 0; i < requests_.size(); ++i) {
            if (operations_[i].kind != kind) continue;
            check_mpi(MPI_Cancel(&requests_[i]), "MPI_Cancel");
            check_mpi(MPI_Wait(&requests_[i], MPI_STATUS_IGNORE),
                      "MPI_Wait (cancelled receive)");  // leaves MPI_REQUEST_NULL
        }
    }
    compact();
}

void OperationSet::compact() {
    size_t kept = 0;
    for (size_t i = 0; i < requests_.size(); ++i) {
        if (requests_[i] == MPI_REQUEST_NULL) continue;
        requests_[kept] = requests_[i];
        if (kept != i) operations_[kept] = std::move(operations_[i]);
        ++kept;
    }
    requests_.resize(kept);
    operations_.resize(kept);
}

void post_send(OperationSet& operations, Operation operation, const void* buffer, int count, MPI_Datatype type, int tag,
               MpiClock& clock, const char* what) {
    MPI_Request request;
    {
        MpiClock::Scope scope(clock);
        check_mpi(MPI_Isend(buffer, count, type, operation.rank, tag, MPI_COMM_WORLD, &request), what);
    }
    operations.add(request, std::move(operation));
}

void post_receive(OperationSet& operations, Operation operation, void* buffer, int count, MPI_Datatype type, int tag,
                  MpiClock& clock, const char* what) {
    MPI_Request request;
    {
        MpiClock::Scope scope(clock);
        check_mpi(MPI_Irecv(buffer, count, type, operation.rank, tag, MPI_COMM_WORLD, &request), what);
    }
    operations.add(request, std::move(operation));
}

}  // namespace farmrt
