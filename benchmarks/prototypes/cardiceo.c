/* Cardiceo's step loop written straight in C: the second candidate of the compiled-engine prototype.
 *
 * The same state row, config row, SplitMix64 streams, draws and observation as
 * ice_envs/cardiceo/compiled.py (numba), so both produce identical batches from identical inputs
 * (benchmarks/prototypes/compare_cardiceo.py checks this before it times them). Only the random-play
 * path is here (no draw log, no penalised illegal actions): it exists to measure, not to ship.
 * Build: gcc -O2 -shared -fPIC -o cardiceo_proto.so cardiceo.c
 */
#include <stdint.h>
#include <string.h>

#define MAX_SEATS 6
#define NV 15
#define HANDS 0
#define SIZES (HANDS + MAX_SEATS * NV)
#define DISCARDED (SIZES + MAX_SEATS)
#define DICE (DISCARDED + NV)
#define USED (DICE + 3)
#define LOCKED (USED + 3)
#define CURRENT (LOCKED + 3)
#define PHASE (CURRENT + 1)
#define WINNER (PHASE + 1)
#define TURN (WINNER + 1)
#define STUCK_DICE (TURN + 4)
#define KNOWN_MISSING (STUCK_DICE + MAX_SEATS * 3)
#define WIDTH (KNOWN_MISSING + MAX_SEATS * NV)
enum { C_PLAYERS, C_HAND, C_FORCED, O_HAND, O_DISC, O_DV, O_DS, O_TOT, O_HS, O_SEAT, O_PHASE, O_ACT, O_SD, O_ST, O_KM };
enum { NO_PLAY = 0, DISCARD = 1, OVER = 2 };
enum { END_TURN = 7, KEEP = 8, REROLL = 9, NACT = 10 };
static const int SUB[7][3] = {{1,0,0},{0,1,0},{0,0,1},{1,1,0},{1,0,1},{0,1,1},{1,1,1}};
static const int FACES[3] = {4, 8, 12};

static inline uint64_t next64(uint64_t *r) {
    uint64_t s = r[0] + 0x9E3779B97F4A7C15ULL; r[0] = s;
    uint64_t z = (s ^ (s >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static inline int below(uint64_t *r, uint64_t n) {
    uint64_t m = (next64(r) >> 32) * n, low = m & 0xFFFFFFFFULL;
    if (low < n) { uint64_t t = ((1ULL << 32) - n) % n; while (low < t) { m = (next64(r) >> 32) * n; low = m & 0xFFFFFFFFULL; } }
    return (int)(m >> 32);
}
static inline int usable_total(const int8_t *s, int sid) {
    int total = 0;
    for (int d = 0; d < 3; d++) if (SUB[sid][d]) { if (s[USED + d]) return 0; total += s[DICE + d]; }
    return total <= NV ? total : 0;
}
static int can_discard(const int8_t *s) {
    if (s[PHASE] != DISCARD) return 0;
    const int8_t *hand = s + HANDS + s[CURRENT] * NV;
    for (int sid = 0; sid < 7; sid++) { int t = usable_total(s, sid); if (t && hand[t - 1] > 0) return 1; }
    return 0;
}
static void record_stuck(int8_t *s) {
    int cur = s[CURRENT];
    for (int sid = 0; sid < 7; sid++) { int t = usable_total(s, sid); if (t) s[KNOWN_MISSING + cur * NV + t - 1] = 1; }
    if (!(s[USED] || s[USED + 1] || s[USED + 2])) for (int d = 0; d < 3; d++) s[STUCK_DICE + cur * 3 + d] = s[DICE + d];
}
static void end_turn(int8_t *s, uint64_t *r, int players) {
    s[CURRENT] = (s[CURRENT] + 1) % players;
    uint32_t turn; memcpy(&turn, s + TURN, 4); turn++; memcpy(s + TURN, &turn, 4);
    if (s[USED] || s[USED + 1] || s[USED + 2]) {
        for (int d = 0; d < 3; d++) if (s[USED + d]) s[DICE + d] = 1 + below(r, FACES[d]);
        for (int d = 0; d < 3; d++) { s[LOCKED + d] = !s[USED + d]; s[USED + d] = 0; }
        s[PHASE] = DISCARD;
    } else { for (int d = 0; d < 3; d++) s[LOCKED + d] = 1; s[PHASE] = NO_PLAY; }
}
static void settle(int8_t *s, uint64_t *r, int players) {
    while (s[PHASE] == DISCARD && !can_discard(s)) { record_stuck(s); end_turn(s, r, players); }
}
static void new_game(int8_t *s, uint64_t *r, const int64_t *cfg) {
    int players = (int)cfg[C_PLAYERS], hs = (int)cfg[C_HAND];
    int deck[60];
    memset(s, 0, WIDTH);
    for (int c = 0; c < 60; c++) deck[c] = c / 4;
    for (int c = 59; c > 0; c--) { int j = below(r, c + 1); int t = deck[c]; deck[c] = deck[j]; deck[j] = t; }
    for (int p = 0; p < players; p++) { for (int c = 0; c < hs; c++) s[HANDS + p * NV + deck[p * hs + c]]++; s[SIZES + p] = hs; }
    s[WINNER] = -1;
    for (int d = 0; d < 3; d++) s[DICE + d] = 1 + below(r, FACES[d]);
    s[PHASE] = DISCARD;
    settle(s, r, players);
}
static void legal(const int8_t *s, const int64_t *cfg, int8_t *mask) {
    memset(mask, 0, NACT);
    if (s[PHASE] == NO_PLAY) { mask[KEEP] = 1; mask[REROLL] = 1; return; }
    if (s[PHASE] != DISCARD) return;
    const int8_t *hand = s + HANDS + s[CURRENT] * NV; int any = 0;
    for (int sid = 0; sid < 7; sid++) { int t = usable_total(s, sid); if (t && hand[t - 1] > 0) { mask[sid] = 1; any = 1; } }
    if (any && !cfg[C_FORCED]) mask[END_TURN] = 1;
}
static void apply(int8_t *s, int a, uint64_t *r, const int64_t *cfg) {
    int players = (int)cfg[C_PLAYERS];
    if (a == KEEP || a == REROLL) {
        if (a == REROLL) for (int d = 0; d < 3; d++) s[DICE + d] = 1 + below(r, FACES[d]);
        for (int d = 0; d < 3; d++) s[LOCKED + d] = a == KEEP;
        s[PHASE] = DISCARD;
    } else if (a == END_TURN) {
        end_turn(s, r, players);
    } else {
        int total = 0, cur = s[CURRENT];
        for (int d = 0; d < 3; d++) if (SUB[a][d]) { total += s[DICE + d]; s[USED + d] = 1; }
        s[HANDS + cur * NV + total - 1]--; s[DISCARDED + total - 1]++; s[SIZES + cur]--;
        if (s[SIZES + cur] == 0) { s[WINNER] = cur; s[PHASE] = OVER; return; }
    }
    settle(s, r, players);
}
static void encode(const int8_t *s, int seat, const int64_t *cfg, float *obs) {
    int players = (int)cfg[C_PLAYERS]; double scale = 1.0 / (double)cfg[C_HAND];
    const int8_t *hand = s + HANDS + seat * NV;
    for (int v = 0; v < NV; v++) { obs[cfg[O_HAND] + v] = hand[v] * 0.25f; obs[cfg[O_DISC] + v] = s[DISCARDED + v] * 0.25f; }
    for (int d = 0; d < 3; d++) obs[cfg[O_DV] + 12 * d + s[DICE + d] - 1] = 1.0f;
    if (s[PHASE] != OVER) {
        for (int d = 0; d < 3; d++) obs[cfg[O_DS] + 3 * d + (s[USED + d] ? 2 : (s[LOCKED + d] ? 1 : 0))] = 1.0f;
        for (int sid = 0; sid < 7; sid++) { int t = usable_total(s, sid); if (t) obs[cfg[O_TOT] + t - 1] = 1.0f; }
        obs[cfg[O_PHASE] + s[PHASE]] = 1.0f;
        obs[cfg[O_ACT] + ((s[CURRENT] - seat) % players + players) % players] = 1.0f;
    }
    for (int r = 0; r < players; r++) {
        int q = (seat + r) % players;
        obs[cfg[O_HS] + r] = (float)(s[SIZES + q] * scale);
        obs[cfg[O_SEAT] + r] = 1.0f;
        if (s[STUCK_DICE + q * 3]) {
            for (int d = 0; d < 3; d++) obs[cfg[O_SD] + 36 * r + 12 * d + s[STUCK_DICE + q * 3 + d] - 1] = 1.0f;
            obs[cfg[O_ST] + r] = 1.0f;
        }
        for (int v = 0; v < NV; v++) if (s[KNOWN_MISSING + q * NV + v]) obs[cfg[O_KM] + r * NV + v] = 1.0f;
    }
}
static void refresh(int i, int8_t *state, const int64_t *cfg, int8_t *mask, int64_t *seat, float *obs, int obs_dim) {
    int8_t *s = state + (int64_t)i * WIDTH;
    legal(s, cfg, mask + (int64_t)i * NACT);
    seat[i] = s[CURRENT];
    float *row = obs + (int64_t)i * obs_dim;
    memset(row, 0, obs_dim * sizeof(float));
    encode(s, s[CURRENT], cfg, row);
}
static void scores(const int8_t *s, const int64_t *cfg, double *out) {
    for (int p = 0; p < cfg[C_PLAYERS]; p++) out[p] = (double)(cfg[C_HAND] - s[SIZES + p]);
}
static void outcome(const int8_t *s, const int64_t *cfg, double *out) {
    for (int p = 0; p < cfg[C_PLAYERS]; p++) out[p] = s[WINNER] < 0 ? 0.0 : (p == s[WINNER] ? 1.0 : -1.0);
}
static void deal(int i, int8_t *state, uint64_t *rng, const int64_t *cfg, int64_t *num_steps, double *last_scores,
                 int8_t *mask, int64_t *seat, float *obs, int obs_dim, int players) {
    new_game(state + (int64_t)i * WIDTH, rng + (int64_t)i * 2, cfg);
    num_steps[i] = 0;
    scores(state + (int64_t)i * WIDTH, cfg, last_scores + (int64_t)i * players);
    refresh(i, state, cfg, mask, seat, obs, obs_dim);
}

void restart_all(int n, int8_t *state, uint64_t *rng, const int64_t *cfg, int64_t *num_steps, double *last_scores,
                 int8_t *mask, int64_t *seat, float *obs, int obs_dim) {
    int players = (int)cfg[C_PLAYERS];
    for (int i = 0; i < n; i++) deal(i, state, rng, cfg, num_steps, last_scores, mask, seat, obs, obs_dim, players);
}

/* One decision in every game (outcome rewards); returns the number of games that ended. */
int step_all(int n, const int64_t *actions, int8_t *state, uint64_t *rng, const int64_t *cfg, int64_t max_length,
             int64_t *num_steps, double *last_scores, int8_t *mask, int64_t *seat, float *obs, int obs_dim,
             double *rewards, uint8_t *terminated, uint8_t *truncated, int64_t *fin_index, float *fin_obs,
             double *fin_rewards, double *fin_scores, double *fin_outcome, int64_t *fin_length) {
    int players = (int)cfg[C_PLAYERS], k = 0;
    double scratch[MAX_SEATS];
    for (int i = 0; i < n; i++) {
        int8_t *s = state + (int64_t)i * WIDTH;
        double *rw = rewards + (int64_t)i * players;
        for (int p = 0; p < players; p++) rw[p] = 0.0;
        terminated[i] = truncated[i] = 0;
        apply(s, (int)actions[i], rng + (int64_t)i * 2, cfg);
        num_steps[i]++;
        if (s[PHASE] == OVER) { terminated[i] = 1; outcome(s, cfg, scratch); for (int p = 0; p < players; p++) rw[p] += scratch[p]; }
        else if (num_steps[i] >= max_length) truncated[i] = 1;
        if (terminated[i] || truncated[i]) {
            fin_index[k] = i;
            for (int p = 0; p < players; p++) {
                float *row = fin_obs + ((int64_t)k * players + p) * obs_dim;
                memset(row, 0, obs_dim * sizeof(float));
                encode(s, p, cfg, row);
                fin_rewards[(int64_t)k * players + p] = rw[p];
            }
            scores(s, cfg, fin_scores + (int64_t)k * players);
            for (int p = 0; p < players; p++) fin_outcome[(int64_t)k * players + p] = 0.0;
            if (terminated[i]) outcome(s, cfg, fin_outcome + (int64_t)k * players);
            fin_length[k] = num_steps[i];
            k++;
            deal(i, state, rng, cfg, num_steps, last_scores, mask, seat, obs, obs_dim, players);
        } else {
            refresh(i, state, cfg, mask, seat, obs, obs_dim);
        }
    }
    return k;
}
