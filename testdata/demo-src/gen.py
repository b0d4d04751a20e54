import csv, io, datetime as dt
from decimal import Decimal as D
import sys
OUT=sys.argv[1] if len(sys.argv)>1 else 'testdata/demo/'
ZH=['平台','账号','项目','实例ID','实例名称','所属实例','费用类型','计费方式','GPU型号','GPU数量','开始时间','结束时间','实际开始','实际结束','计费数量','单位','单价','原价','应付金额','代金券','现金支付','说明']
EN=['provider','account','project','resource_id','resource_name','parent_resource_id','kind','pricing_model','gpu_model','gpu_count','start','end','usage_start','usage_end','billed_quantity','unit','unit_price','list_cost','billed_cost','voucher_paid','cash_paid','description']
F='%Y-%m-%d %H:%M:%S'
def t(s): return dt.datetime.strptime(s,'%Y-%m-%d %H:%M')
def row(**k):
    return [k.get(e,'') for e in EN]
def fmt(x): return x.strftime(F) if x else ''
def hourly(rows, prov, acct, proj, rid, name, gpu, price, start, end, usage=True, kindzh='GPU计算', pm='按量'):
    """one charge row per started hour, the last one pro rata to the second (AutoDL style)"""
    cur=start
    while cur<end:
        nxt=min(cur+dt.timedelta(hours=1), end)
        hrs=D((nxt-cur).total_seconds())/D(3600)
        amt=(D(price)*hrs).quantize(D('0.01'))
        rows.append(row(provider=prov,account=acct,project=proj,resource_id=rid,resource_name=name,kind=kindzh,pricing_model=pm,
            gpu_model=gpu,gpu_count='1',start=fmt(cur),end=fmt(nxt),usage_start=fmt(start) if usage else '',usage_end=fmt(end) if usage else '',
            billed_quantity=str(hrs.normalize()) if hrs!=1 else '1',unit='小时',unit_price=price,list_cost=str(amt),billed_cost=str(amt),voucher_paid='0',cash_paid=str(amt)))
        cur=nxt
def daily(rows, prov, acct, proj, rid, name, parent, kindzh, qty, unit, price, d0, d1, desc):
    d=d0
    while d<=d1:
        amt=(D(qty)*D(price)).quantize(D('0.01'))
        rows.append(row(provider=prov,account=acct,project=proj,resource_id=rid,resource_name=name,parent_resource_id=parent,kind=kindzh,
            start=fmt(d),end=fmt(d+dt.timedelta(days=1)),billed_quantity=qty,unit=unit,unit_price=price,list_cost=str(amt),billed_cost=str(amt),voucher_paid='0',cash_paid=str(amt),description=desc))
        d+=dt.timedelta(days=1)
def write(name, header, rows, enc='utf-8'):
    buf=io.StringIO()
    w=csv.writer(buf, lineterminator='\r\n' if enc=='gbk' else '\n')
    w.writerow(header); w.writerows(rows)
    open(OUT+name,'wb').write(buf.getvalue().encode(enc))

# AutoDL: UTF-8, Chinese headers
r=[]
A='autodl'; acct='lab-zhang'; proj='NSFC-62376'
hourly(r,'AutoDL',acct,proj,'autodl-4090-a','llama-lora','RTX 4090','1.88',t('2026-10-03 14:00'),t('2026-10-03 17:30'),usage=False)
hourly(r,'AutoDL',acct,proj,'autodl-4090-a','llama-lora','RTX 4090','1.88',t('2026-10-08 09:00'),t('2026-10-08 12:00'),usage=False)
hourly(r,'AutoDL',acct,proj,'autodl-4090-a','llama-lora','RTX 4090','1.88',t('2026-10-12 20:00'),t('2026-10-14 09:00'),usage=False)
hourly(r,'AutoDL',acct,proj,'autodl-4090-a','llama-lora','RTX 4090','1.88',t('2026-10-20 10:00'),t('2026-10-20 13:00'),usage=False)
daily(r,'AutoDL',acct,proj,'autodl-4090-a-disk','数据盘扩容 50GB','autodl-4090-a','数据盘','50','GB·天','0.0066',t('2026-10-01 00:00'),t('2026-10-31 00:00'),'数据盘扩容，关机也计费')
daily(r,'AutoDL',acct,proj,'autodl-img-7f3e','保存镜像 llama-env','autodl-4090-a','镜像','10','GB·天','0.01',t('2026-10-01 00:00'),t('2026-10-31 00:00'),'镜像超出免费30GB部分')
# planted: the 10-08 09:00 hour charged twice (duplicate_charge)
r.insert(4, list(r[4]))
# planted: a settlement row overlapping the last hour of 10-20 (overlapping_charge)
r.append(row(provider='AutoDL',account=acct,project=proj,resource_id='autodl-4090-a',resource_name='llama-lora',kind='GPU计算',pricing_model='按量',
    gpu_model='RTX 4090',gpu_count='1',start='2026-10-20 12:30:00',end='2026-10-20 13:00:00',billed_quantity='0.5',unit='小时',unit_price='1.88',
    list_cost='0.94',billed_cost='0.94',voucher_paid='0',cash_paid='0.94',description='关机结算'))
# planted: a fee of no known kind (unclassified_charge)
r.append(row(provider='AutoDL',account=acct,project=proj,kind='其他',start='2026-10-15 00:00:00',end='2026-10-16 00:00:00',
    billed_cost='1.00',voucher_paid='0',cash_paid='1.00',description='平台服务费'))
r.append(row(provider='AutoDL',account=acct,project=proj,kind='代金券',start='2026-10-01 00:00:00',end='2026-10-01 00:00:00',billed_cost='-10.00',voucher_paid='-10.00',cash_paid='0',description='新用户代金券'))
write('autodl-2026-10.csv', ZH, r)

# 揽睿星舟: GBK (Excel on Windows), Chinese headers, hourly billing
r=[]
def lanrui(start,end,billed_h,usage_start,usage_end):
    amt=(D('7.50')*D(billed_h)).quantize(D('0.01'))
    r.append(row(provider='揽睿星舟',account='zhang@lab',project='NSFC-62376',resource_id='lr-a100-01',resource_name='sft-qwen',kind='GPU计算',pricing_model='按量',
        gpu_model='A100 80G',gpu_count='1',start=start,end=end,usage_start=usage_start,usage_end=usage_end,billed_quantity=billed_h,unit='小时',unit_price='7.50',
        list_cost=str(amt),billed_cost=str(amt),voucher_paid='0',cash_paid=str(amt)))
lanrui('2026-10-05 10:00:00','2026-10-05 11:00:00','1','2026-10-05 10:00:00','2026-10-05 10:12:00')
lanrui('2026-10-09 14:00:00','2026-10-09 16:00:00','2','2026-10-09 14:00:00','2026-10-09 15:05:00')
lanrui('2026-10-15 09:00:00','2026-10-15 17:00:00','8','2026-10-15 09:00:00','2026-10-15 17:00:00')
# planted: 120 GB of public traffic for a model download (egress)
r.append(row(provider='揽睿星舟',account='zhang@lab',project='NSFC-62376',resource_id='lr-a100-01-eip',resource_name='公网带宽',parent_resource_id='lr-a100-01',
    kind='流量',start='2026-10-05 10:00:00',end='2026-10-05 11:00:00',billed_quantity='120',unit='GB',unit_price='0.13',list_cost='15.60',billed_cost='15.60',
    voucher_paid='0',cash_paid='15.60',description='下载预训练模型'))
daily(r,'揽睿星舟','zhang@lab','NSFC-62376','lr-a100-01-data','数据盘 100GB','lr-a100-01','数据盘','100','GB·天','0.0048',t('2026-10-05 00:00'),t('2026-10-31 00:00'),'数据盘按小时计费直到销毁，日汇总')
write('揽睿星舟-费用明细-2026-10.csv', ZH, r, 'gbk')

# 恒源云: UTF-8 with BOM, English headers
r=[]
hourly(r,'gpushare','zhang','', 'hy-4090-77','qwen-eval','RTX 4090','2.20',t('2026-10-22 22:00'),t('2026-10-23 08:00'),usage=False)
hourly(r,'gpushare','zhang','', 'hy-4090-77','qwen-eval','RTX 4090','2.20',t('2026-10-27 13:00'),t('2026-10-27 15:45'),usage=False)
# planted: ¥2.80/h against the ¥2.2/h reference (price_deviation)
hourly(r,'gpushare','zhang','', 'hy-4090-88','data-prep','RTX 4090','2.80',t('2026-10-08 10:00'),t('2026-10-08 13:00'),usage=False)
for x in r:
    x[EN.index('kind')]='compute'; x[EN.index('pricing_model')]='on_demand'; x[EN.index('unit')]='hour'
# planted: a daily fee to keep the stopped instance (seat_fee); it was due for release 10 days after 10-08 (release_risk)
daily(r,'gpushare','zhang','', 'hy-4090-88','data-prep','', 'seat','1','day','0.50',t('2026-10-09 00:00'),t('2026-10-31 00:00'),'shutdown retention fee')
buf=io.StringIO(); w=csv.writer(buf, lineterminator='\n'); w.writerow(EN); w.writerows(r)
open(OUT+'gpushare-bill-2026-10.csv','wb').write(b'\xef\xbb\xbf'+buf.getvalue().encode())

# 矩池云 rows, written as CSV here and turned into XLSX by the demo generator test
r=[]
hourly(r,'矩池云','zhang','NSFC-62376','mp-4090-3','sd-finetune','RTX 4090','2.00',t('2026-10-10 19:00'),t('2026-10-10 23:30'))
hourly(r,'矩池云','zhang','NSFC-62376','mp-4090-3','sd-finetune','RTX 4090','2.00',t('2026-10-31 20:00'),t('2026-11-01 00:00'),usage=False)
r.append(row(provider='矩池云',account='zhang',project='NSFC-62376',resource_id='mp-a100-w1',resource_name='weekly-train',kind='GPU计算',pricing_model='包周',gpu_model='A100 40G',gpu_count='1',
    start='2026-10-16 10:00:00',end='2026-10-23 10:00:00',billed_quantity='1',unit='次',unit_price='399.00',list_cost='399.00',billed_cost='399.00',voucher_paid='0',cash_paid='399.00',description='包周，开关机都计费'))
write('../demo-src/matpool-2026-10.csv', ZH, r)

# Money flow (收支明细) for AutoDL
flow=[['平台','账号','时间','类型','金额','余额','单号','说明'],
 ['AutoDL','lab-zhang','2026-10-01 09:12:40','充值','200.00','200.00','AD202610010912','支付宝充值'],
 ['AutoDL','lab-zhang','2026-10-01 09:13:00','代金券','10.00','','V-NEW-10','新用户代金券'],
 ['AutoDL','lab-zhang','2026-10-12 19:58:03','充值','100.00','','AD202610121958','微信支付充值'],
]
write('autodl-收支明细-2026-10.csv', flow[0], flow[1:])

# FOCUS 1.2 CSV (AWS), UTC times
H=['BilledCost','BillingAccountId','BillingAccountName','BillingCurrency','BillingPeriodStart','BillingPeriodEnd','ChargeCategory','ChargeClass','ChargeDescription','ChargeFrequency','ChargePeriodStart','ChargePeriodEnd','ConsumedQuantity','ConsumedUnit','ContractedCost','EffectiveCost','ListCost','ListUnitPrice','PricingCategory','PricingQuantity','PricingUnit','ProviderName','PublisherName','InvoiceIssuerName','RegionId','RegionName','ResourceId','ResourceName','ResourceType','ServiceCategory','ServiceName','SkuId','SubAccountId','SubAccountName','Tags']
def z(x): return x.strftime('%Y-%m-%dT%H:%M:%SZ')
rows=[]
def frow(cost, start, end, desc, qty, unit, price, rid, rname, rtype, cat, svc, sku, freq='Usage-Based'):
    d=dict(BilledCost=cost,BillingAccountId='210987654321',BillingAccountName='lab-aws',BillingCurrency='USD',BillingPeriodStart='2026-10-01T00:00:00Z',BillingPeriodEnd='2026-11-01T00:00:00Z',
        ChargeCategory='Usage',ChargeClass='',ChargeDescription=desc,ChargeFrequency=freq,ChargePeriodStart=z(start),ChargePeriodEnd=z(end),ConsumedQuantity=qty,ConsumedUnit=unit,
        ContractedCost=cost,EffectiveCost=cost,ListCost=cost,ListUnitPrice=price,PricingCategory='Standard',PricingQuantity=qty,PricingUnit=unit,ProviderName='AWS',PublisherName='Amazon Web Services, Inc.',
        InvoiceIssuerName='Amazon Web Services, Inc.',RegionId='us-west-2',RegionName='US West (Oregon)',ResourceId=rid,ResourceName=rname,ResourceType=rtype,ServiceCategory=cat,ServiceName=svc,SkuId=sku,
        SubAccountId='210987654321',SubAccountName='lab-aws',Tags='{"project": "NSFC-62376"}')
    rows.append([d[h] for h in H])
s=dt.datetime(2026,10,20,0,0)
for i in range(36):
    a=s+dt.timedelta(hours=i)
    frow('1.006',a,a+dt.timedelta(hours=1),'$1.006 per On Demand Linux g5.xlarge Instance Hour','1','Hours','1.006','i-0a1b2c3d4e5f60718','gpu-train','g5.xlarge','Compute','Amazon Elastic Compute Cloud','G5XL-USW2')
d=dt.datetime(2026,10,15)
while d<dt.datetime(2026,11,1):
    frow('0.25806451613',d,d+dt.timedelta(days=1),'$0.08 per GB-month of General Purpose SSD (gp3) provisioned storage','3.2258064516','GB-Mo','0.08','vol-0f9e8d7c6b5a43210','gpu-train-data','Volume','Storage','Amazon Elastic Compute Cloud','GP3-USW2')
    d+=dt.timedelta(days=1)
# the volume belongs to the instance: FOCUS has no parent column; the demo relies on account-level fallback
frow('2.30',dt.datetime(2026,10,21,10),dt.datetime(2026,10,21,11),'$0.09 per GB - first 10 TB / month data transfer out','25.5555555556','GB','0.09','i-0a1b2c3d4e5f60718','gpu-train','g5.xlarge','Networking','Amazon Elastic Compute Cloud','DTO-USW2')
buf=io.StringIO(); w=csv.writer(buf, lineterminator='\n', quoting=csv.QUOTE_MINIMAL); w.writerow(H); w.writerows(rows)
open(OUT+'aws-focus-2026-10.csv','w').write(buf.getvalue())
