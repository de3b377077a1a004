/* An MPI program with known call counts per rank (tests/mpi/run.sh), built
 * with each implementation's mpicc. No pmcshim markers: every region comes
 * from the shim's MPI wrappers.
 *   mpiapp [twice|never]   MPI_Finalize once (default), twice (rank 0), or never */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define ROUNDS 10

static void point_to_point(int rank, int size)
{
	int token = rank, got = -1, left = (rank + size - 1) % size, right = (rank + 1) % size;
	MPI_Request req[2];
	MPI_Status st, both[2];

	for (int i = 0; i < 3; i++) {
		MPI_Irecv(&got, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &req[0]);
		MPI_Isend(&token, 1, MPI_INT, right, 1, MPI_COMM_WORLD, &req[1]);
		MPI_Waitall(2, req, both);
	}
	for (int i = 0; i < 2; i++)
		MPI_Sendrecv(&token, 1, MPI_INT, right, 2, &got, 1, MPI_INT, left, 2,
			     MPI_COMM_WORLD, &st);
	/* rank 0 sends to every other rank, which probes then receives */
	if (rank == 0) {
		for (int r = 1; r < size; r++)
			MPI_Send(&token, 1, MPI_INT, r, 3, MPI_COMM_WORLD);
	} else {
		MPI_Probe(0, 3, MPI_COMM_WORLD, &st);
		MPI_Recv(&got, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, &st);
	}
}

static void collectives(int rank, int size)
{
	double x = rank, sum = 0, all[64], one[64];
	MPI_Request req;
	MPI_Comm half;

	for (int i = 0; i < ROUNDS; i++)
		MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	for (int i = 0; i < 5; i++)
		MPI_Barrier(MPI_COMM_WORLD);
	for (int i = 0; i < 4; i++)
		MPI_Bcast(&x, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	MPI_Reduce(&x, &sum, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	MPI_Gather(&x, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	MPI_Scatter(all, 1, MPI_DOUBLE, &x, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	MPI_Allgather(&x, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, MPI_COMM_WORLD);
	for (int i = 0; i < size && i < 64; i++)
		one[i] = rank;
	MPI_Alltoall(one, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, MPI_COMM_WORLD);
	MPI_Ibarrier(MPI_COMM_WORLD, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, half);
	MPI_Comm_free(&half);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "once";
	int rank, size;
	double t0, t1;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	t0 = MPI_Wtime();
	point_to_point(rank, size);
	collectives(rank, size);
	t1 = MPI_Wtime();
	printf("rank %d of %d done%s\n", rank, size, t1 >= t0 ? "" : " (clock went back)");
	fflush(stdout);
	if (strcmp(mode, "never") == 0)
		return 0;
	MPI_Finalize();
	/* rank 0 alone: an MPI that aborts the job at the second call may end
	 * the other ranks at any point after their first (its teardown is not
	 * ours to order) */
	if (strcmp(mode, "twice") == 0 && rank == 0)
		MPI_Finalize();
	return 0;
}
