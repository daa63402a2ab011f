/*
 * A tight reference IDA* with Manhattan distance for the 15-puzzle, to
 * measure hfarm's (crates/puzzles) node rate against: same instances, same
 * algorithm, same counts.
 *
 * Everything as crates/puzzles/src/search/ida.rs does it: Korf's
 * convention (tiles[pos], 0 the blank, goal 0 1 ... 15), the blank's moves
 * up, left, right, down; parent pruning (never straight back); Manhattan
 * distance updated per move; at a node with f <= bound the full goal test,
 * then the expansion (f is compared in the parent, so that leaves beyond the
 * bound cost no call); "generated" counts every child not pruned,
 * "expanded" every node whose children were generated, over all
 * iterations. So both programs must report identical node counts.
 *
 * Build: gcc -O3 -o ida15 ida15.c     Run: ./ida15 FILE
 * FILE: one instance per line, 16 numbers (other lines ignored).
 * Prints one line per instance and a closing "total" line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static unsigned char tiles[16];
static int blank;
static unsigned char moves[16][4];
static int nmoves[16];
static int md[16][16];
static int bound, next_bound, found_g;
static unsigned long long generated, expanded;
static const unsigned char goal[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

static void tables(void) {
    for (int c = 0; c < 16; c++) {
        int n = 0;
        if (c >= 4) moves[c][n++] = c - 4;
        if (c % 4 > 0) moves[c][n++] = c - 1;
        if (c % 4 < 3) moves[c][n++] = c + 1;
        if (c < 12) moves[c][n++] = c + 4;
        nmoves[c] = n;
    }
    for (int t = 1; t < 16; t++)
        for (int c = 0; c < 16; c++) md[t][c] = abs(t / 4 - c / 4) + abs(t % 4 - c % 4);
}

/* Expands the current node, whose f = g + h is within the bound: children
 * beyond it are counted and propose the next bound without a call (most
 * generated nodes are such leaves). 1: found (tiles left at the goal). */
static int dfs(int g, int h, int prev) {
    if (memcmp(tiles, goal, 16) == 0) {
        found_g = g;
        return 1;
    }
    expanded++;
    int b = blank;
    for (int i = 0; i < nmoves[b]; i++) {
        int to = moves[b][i];
        if (to == prev) continue;
        generated++;
        int tile = tiles[to];
        int hc = h + md[tile][b] - md[tile][to];
        int f = g + 1 + hc;
        if (f > bound) {
            if (f < next_bound) next_bound = f;
            continue;
        }
        tiles[b] = tile;
        tiles[to] = 0;
        blank = to;
        if (dfs(g + 1, hc, b)) return 1;
        tiles[to] = tile;
        tiles[b] = 0;
        blank = b;
    }
    return 0;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s FILE\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    tables();
    char line[1024];
    int k = 0;
    unsigned long long total_generated = 0, total_expanded = 0;
    double total_time = 0;
    while (fgets(line, sizeof line, f)) {
        int v[16];
        if (sscanf(line, "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d", &v[0], &v[1], &v[2], &v[3], &v[4],
                   &v[5], &v[6], &v[7], &v[8], &v[9], &v[10], &v[11], &v[12], &v[13], &v[14], &v[15]) != 16)
            continue;
        int h = 0;
        for (int c = 0; c < 16; c++) {
            tiles[c] = (unsigned char)v[c];
            if (v[c] == 0) blank = c;
            else h += md[v[c]][c];
        }
        generated = expanded = 0;
        double t0 = now();
        bound = h;
        int found;
        for (;;) {
            next_bound = 1 << 30;
            found = dfs(0, h, -1);
            if (found || next_bound == 1 << 30) break;
            bound = next_bound;
        }
        double t = now() - t0;
        k++;
        printf("instance %d cost %d generated %llu expanded %llu seconds %.3f\n", k, found ? found_g : -1, generated,
               expanded, t);
        total_generated += generated;
        total_expanded += expanded;
        total_time += t;
    }
    printf("total instances %d generated %llu expanded %llu seconds %.3f nodes_per_second %.0f\n", k,
           total_generated, total_expanded, total_time, total_generated / total_time);
    return 0;
}
