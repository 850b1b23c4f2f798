import sys, collections
lines=[l.split() for l in open(sys.argv[1]) if l.startswith('TL ')]
t0=None
workers={}
ev=[]
dev=collections.defaultdict(list)
for p in lines:
    t=float(p[1]); k=p[2]
    if t0 is None: t0=t
    if k=='worker': workers[p[4]]=int(p[3])
    if k=='device':
        d=int(p[3]); dev[d].append((float(p[8])-t0, float(p[10])-t0, int(p[5]), int(p[6])))
    ev.append((t-t0,p[2:]))
# first & last
for d in sorted(dev):
    spans=sorted(dev[d])
    busy=0; end=-1; gaps=[]
    for s,e,a,b in spans:
        if s>end and end>=0: gaps.append((end,s-end))
        busy+= e-max(s,end) if e>max(s,end) else 0
        end=max(end,e)
    print("device",d,"bands",len(spans),"first start %.4f last end %.4f busy %.4f gaps total %.4f n %d"%(spans[0][0],end,busy,sum(g for _,g in gaps),len(gaps)))
    big=sorted(gaps,key=lambda x:-x[1])[:8]
    print("  biggest gaps (at, ms):", ", ".join("%.3f:%.2f"%(a,g*1e3) for a,g in big))
