# Medians of the within-repeat ratios of ab.sh output against one variant:
#   python3 ab_summary.py RAW.txt BASE_VARIANT
import sys, collections, statistics
runs = collections.defaultdict(dict); order=[]
base=sys.argv[2]
for line in open(sys.argv[1]):
    sc, v, r, rate = line.split(); runs[(sc,r)][v]=float(rate)
    if (sc,v) not in order: order.append((sc,v))
for sc,v in order:
    ks=[k for k in runs if k[0]==sc]
    rat=[runs[k][v]/runs[k][base] for k in ks]
    print(f"{sc:14s} {v:12s} {statistics.median(runs[k][v] for k in ks):.4g}/s  vs {base}: {statistics.median(rat):.3f}x  (min {min(rat):.2f} max {max(rat):.2f}, n={len(ks)})")
