package normalize

import (
	"cmp"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	casefile "github.com/incidentlib/casefile"
)

// Hit is one classification: a vocabulary slug and the sentence behind it.
type Hit struct {
	Slug string `json:"slug"`
	// Term is the text that matched; Sentence the sentence it was found in
	// and Section the kind of section that sentence belongs to.
	Term     string               `json:"term"`
	Sentence string               `json:"sentence"`
	Section  casefile.SectionKind `json:"section"`
	// Score adds up the section weights of every sentence that matched.
	Score float64 `json:"score"`
	// Rule says how the slug was chosen, for the reviewer.
	Rule string `json:"rule"`
}

// Classification is a document classified against the vocabulary. Every
// slug in it is in the vocabulary it was made with; lists are ordered by
// score, best first, and never nil.
type Classification struct {
	// RootCause is the best-scoring root cause, or "unknown" (with no
	// sentence) when nothing names one.
	RootCause    Hit
	Symptoms     []Hit
	Contributing []Hit
	Components   []Hit
	Domains      []Hit
}

// Slugs returns the slugs of hits, in order, never nil.
func Slugs(hits []Hit) []string {
	out := make([]string, 0, len(hits))
	for _, h := range hits {
		out = append(out, h.Slug)
	}
	return out
}

// classTerm is one dictionary entry: words that point at a slug.
type classTerm struct {
	slug string
	re   *regexp.Regexp
	pat  *Pattern
	// generic terms are common words ("database", "monitoring"): their
	// slug needs a score of 2 (a core section, or two mentions).
	generic bool
	// needs names a context ("cloud", "kubernetes") the document must have
	// for the term to count; elseSlug is used without it ("" drops it).
	needs    string
	elseSlug string
	// negatable terms are skipped after "not", "no", "ruled out" ...
	negatable bool
	// literals are lower-case strings one of which every match contains;
	// a sentence holding none of them is not searched (nil: always search).
	literals []string
}

// mayMatch reports whether a lower-cased sentence can hold a match of t.
func (t classTerm) mayMatch(lower string) bool {
	if t.literals == nil {
		return true
	}
	for _, l := range t.literals {
		if strings.Contains(lower, l) {
			return true
		}
	}
	return false
}

// requiredLiterals returns lower-case strings one of which every match of
// the pattern contains, or nil when it cannot tell. It reads the parsed
// pattern: a literal is required by itself, a concatenation requires what
// its most telling part requires, an alternation one of what each branch
// requires.
func requiredLiterals(pattern string) []string {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	return literalsOf(re.Simplify())
}

func literalsOf(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}
	case syntax.OpCapture, syntax.OpPlus:
		return literalsOf(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return literalsOf(re.Sub[0])
		}
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			l := literalsOf(sub)
			if l == nil {
				return nil
			}
			out = append(out, l...)
		}
		return out
	case syntax.OpConcat:
		var best []string
		bestLen := 0
		for _, sub := range re.Sub {
			l := literalsOf(sub)
			if l == nil {
				continue
			}
			shortest := len(l[0])
			for _, x := range l {
				shortest = min(shortest, len(x))
			}
			if shortest > bestLen {
				best, bestLen = l, shortest
			}
		}
		return best
	}
	return nil
}

// ct compiles a dictionary entry. Patterns are case-insensitive; they mark
// their own word boundaries so that Korean terms can match inside words.
func ct(slug, pattern string, opts ...string) classTerm {
	pat := MustPattern(`(?i)` + pattern)
	t := classTerm{slug: slug, re: pat.re, pat: pat, literals: pat.literals}
	for _, o := range opts {
		switch {
		case o == "generic":
			t.generic = true
		case o == "neg":
			t.negatable = true
		case strings.HasPrefix(o, "needs:"):
			t.needs = strings.TrimPrefix(o, "needs:")
		case strings.HasPrefix(o, "else:"):
			t.elseSlug = strings.TrimPrefix(o, "else:")
		}
	}
	return t
}

// rootCauseTerms, in tie-break order: an earlier slug wins a tie.
var rootCauseTerms = []classTerm{
	ct("software-bug", `\bbugs?\b|\bsoftware (?:defect|bug|error|fault)|\bregression\b|\bnull ?pointer|NullPointerException|\brace condition|\bmemory leak|\bdeadlock|\bsegfault|segmentation fault|\blatent (?:bug|defect|issue)|\binefficient code path|\bcode path\b|\bcatastrophic(?:ally)? backtrack|\bbacktrack(?:ing|ed)? catastrophically|\bincompatib(?:le|ility)\b|\bparsing error|\bunhandled exception|버그|결함|비효율적인 코드`, "neg"),
	ct("config-change", `\bconfig(?:uration)? (?:change|push|update|rollout|error|mistake|file|deploy\w*)s?\b|\bmisconfigur\w+|\b(?:incorrect|bad|faulty|invalid|erroneous) config\w*|\bpushed (?:a |an )?(?:new )?(?:rule|config\w*|setting)|\bconfiguration was (?:changed|updated|pushed)|설정 변경|구성 변경|잘못된 설정`, "neg"),
	ct("capacity", `\bcapacity\b|\boverload(?:ed|ing)?\b|\bresource exhaustion|\bran out of (?:memory|disk|capacity|space|connections)|\bout of memory\b|\bOOM\b|\btraffic (?:spike|surge)|\bexhaust(?:ed|ion)\b|\bsaturat(?:ed|ion)\b|\bCPU (?:exhaustion|at 100)|\b100% CPU|용량 부족|과부하`, "neg"),
	ct("dependency-failure", `\b(?:upstream|third[- ]party) (?:provider|dependency|service|vendor)\b|\bdependency (?:failure|outage)|\bprovider(?:'s|’s)? (?:outage|incident|failure)|\bvendor (?:outage|incident|failure)`, "neg"),
	ct("hardware", `\bhardware (?:failure|fault|issue|problem|defect)s?|\b(?:disk|drive|NIC|switch|router|memory|power supply) failure|\bfail(?:ed|ing) (?:disks?|drives?|NICs?|switch(?:es)?|routers?)\b|\bfaulty (?:hardware|disk|memory|NIC|switch|router|line ?card)|하드웨어 장애`, "neg"),
	ct("network-failure", `\bnetwork (?:failure|outage|partition)s?\b|\bpacket loss\b|\bfib(?:er|re) cuts?\b|\blink failure|\bnetwork congestion|\bloss of (?:network )?connectivity|네트워크 장애`, "neg"),
	ct("power-failure", `\bpower (?:outage|failure|loss|cut|event)s?\b|\bloss of (?:utility )?power|\butility power\b|\bUPS (?:failure|units?)\b|\bgenerators? (?:failed|did not start)|정전|전원 장애`, "neg"),
	ct("certificate-expiry", `\bcertificates? (?:had |has )?expir\w*|\bexpired (?:TLS |SSL |root |intermediate )?certificates?|인증서 만료`, "neg"),
	ct("dns", `\bDNS (?:misconfiguration|record|records|change|zone|outage|failure)s?\b|\bDNSSEC\b`, "neg"),
	ct("data-corruption", `\bdata corruption\b|\bcorrupt(?:ed|ion)\b|데이터 손상`, "neg"),
	ct("human-error", `\bhuman error\b|\boperator error\b|\bmanual (?:error|mistake)\b|\btypo\b|\bmistakenly\b|\baccidentally\b|\binadvertently\b|\bincorrectly (?:entered|ran|typed|executed)|사람의 실수|작업자 실수`, "neg"),
	ct("security", `\bDDoS\b|\bdenial[- ]of[- ]service attack|\bmalicious\b|\bcompromised\b|\bsecurity (?:breach|incident)|\bexploit(?:ed)?\b|\bcyber ?attack|\bunauthori[sz]ed access|디도스|해킹`, "neg"),
	ct("time-handling", `\bleap second|\bclock (?:skew|drift)|\bdaylight saving|\bY2K\b|\b(?:date|time|integer) (?:overflow|rollover)|윤초`, "neg"),
	ct("environmental", `\bfire\b|\bflood(?:ing)?\b|\bhurricane\b|\bearthquake\b|\bheat ?wave\b|\bcooling (?:failure|system failed)|\bstorm\b|화재|침수`, "neg"),
}

var symptomTerms = []classTerm{
	ct("high-error-rate", `\b(?:HTTP )?5\d\d(?:s|'s)?(?: Bad Gateway| Service Unavailable| Internal Server Error| Gateway Timeout)?\b(?: errors?| responses?| status| codes?)|\b50[0234]s?\b|\berror rates?\b|\belevated (?:errors|error rates?|5xx)|\berrors? (?:rates? )?(?:spiked|increased|rose)|\brequests? (?:failed|were failing|started to fail|to fail|fail(?:ing)? with)|\bfailed requests\b|\bincreased errors\b|오류 비율|오류율|502`, "neg"),
	ct("increased-latency", `\blatenc(?:y|ies)\b|\bslow(?:ness|er| responses?| performance)\b|\bdegraded performance\b|\bresponse times?\b|지연`, "neg"),
	ct("timeouts", `\btime(?:d)? ?out\b|\btimeouts\b|\btimed-out\b|타임아웃|시간 초과`, "neg"),
	ct("service-unavailable", `\bunavailab(?:le|ility)\b|\boutage\b|\b(?:was|were|went) (?:completely )?down\b|\b(?:could not|couldn't|were unable to|was unable to|unable to) (?:access|use|reach|load|log ?in|sign ?in|connect)|\binaccessible\b|\bnot (?:available|accessible)\b|\boffline\b|\bservice disruption\b|장애|접속하지 못|쓸 수 없|멈췄`, "neg"),
	ct("network-unreachable", `\bunreachable\b|\bno (?:network )?connectivity\b|\bcould not be reached\b|\bconnection(?:s)? (?:reset|refused|were reset|was reset)|\bconnection resets?\b|\blost (?:network )?connectivity|\bnetwork connectivity (?:issues?|problems?|loss)|연결되지 않|닿을 수 없|연결 재설정`, "neg"),
	ct("dns-resolution-failure", `\bDNS (?:resolution|lookups?|queries|query|requests?)(?: (?:fail\w*|timed out|errors?))?\b|\bNXDOMAIN\b|\bSERVFAIL\b|\b(?:could not|failed to|unable to) resolve\b|DNS 조회|이름이 풀리지`, "neg"),
	ct("readiness-probe-failures", `\bhealth ?checks? (?:were |was |started |began )?(?:fail\w*)|\bfail(?:ed|ing)? (?:the |its |their |our )?(?:load balancer(?:'s)? )?(?:own )?health ?checks?|\breadiness (?:probes?|checks?)|\bliveness probes?|상태 검사에 (?:모두 )?실패|헬스 체크(?:도)? (?:통과하지 못|실패)`, "neg"),
	ct("stale-service-routing", `\bstale (?:routing|routes|endpoints|service discovery|addresses|IPs?)|\bold (?:IP )?addresses\b|\b(?:routing|sending) (?:its |their )?requests to (?:old|stale)|\bIP addresses where no process|서비스 위치 갱신`, "neg"),
	ct("data-loss", `\bdata loss\b|\blost (?:customer |user )?data\b|\bdata (?:was|were) (?:lost|deleted|destroyed)|\bpermanently (?:deleted|lost)|데이터 손실|데이터가 사라`, "neg"),
	ct("data-inconsistency", `\binconsistent (?:data|state|results)|\bstale data\b|\bincorrect (?:data|balances?|results)|\bduplicate (?:charges|records|payments|messages)`, "neg"),
	ct("login-failures", `\b(?:log ?in|sign[- ]in|authentication) (?:failures?|errors?|issues?|problems?)|\bunable to (?:log|sign) in|\bcould not (?:log|sign) in|로그인 실패|로그인하지 못`, "neg"),
	ct("delayed-processing", `\bdelay(?:ed|s)? (?:in )?(?:processing|delivery|jobs?|notifications?|emails?|webhooks?|builds?)|\bbacklog\b|\bqueue(?:d|s)? (?:grew|backed up)|처리가 지연|지연 처리`, "neg"),
	ct("resource-creation-failures", `\b(?:could not|couldn't|unable to|failed to) (?:create|launch|provision|start) (?:new )?(?:instances?|resources?|VMs?|clusters?|containers?)|\binstance launch(?:es)? fail|\bnewly created (?:VMs?|instances?)|새로 만(?:든|들거나)`, "neg"),
	ct("deploy-failures", `\bdeploy(?:ment)?s? (?:failed|were failing|could not)|\bfailed deploy(?:ment)?s\b|\bbuilds? (?:failed|were failing)`, "neg"),
	ct("payment-failures", `\bpayments? (?:failed|fail|failures?|were declined|declined)|\bfailed payments?\b|\bcard (?:payments? )?declin\w+|결제(?:가)? 실패`, "neg"),
	ct("crash-loop", `\bcrash ?loop\w*|\brestart(?:ed|ing) repeatedly|\bkept (?:crashing|restarting)|\brepeatedly (?:crashed|restarted)|거듭 재시작|반복해서 재시작`, "neg"),
	ct("packet-loss", `\bpacket loss\b|\bdropped packets\b|패킷 손실`, "neg"),
}

var contributingTerms = []classTerm{
	ct("monitoring-blind-spot", `\b(?:no|did not|didn't|not) (?:alert|alarm)\w*|\bnot (?:part of|covered by|included in) (?:our |the )?(?:alerting|monitoring)|\bmonitoring (?:gap|blind spot|did not|didn't|failed to|could not)|\black of (?:monitoring|alerting|visibility|observability)|\bwithout (?:an )?alert|\balerts? (?:did not|didn't|never) fire|\bwere not alerted|\bno visibility|\braised no alert|\bblind spot|알림에 (?:들어 있지 않|없)|감시하지 (?:않|못)`),
	ct("overlapping-failures", `\bunrelated (?:\S+ ){0,4}?(?:issue|incident|outage|problem|event)s?\b|\bat the same time\b|\bcoinciden\w+|\bcoincided\b|\bsimultaneous(?:ly)? (?:incident|outage|issue)|\bconcurrent (?:incident|outage|issue)s?|\bsecond,? unrelated|\bturned out to be unrelated|관련이 없는 것으로|동시에 난`),
	ct("blast-radius-too-wide", `\bblast radius\b|\bpropagated globally\b|\bglobal(?:ly)? (?:propagat\w+|rollout|deploy\w*|push\w*)|\b(?:to|across) (?:every|all) (?:machines?|servers?|regions|data cent(?:er|re)s)(?: at once| simultaneously)|\beverywhere at once\b|\bsingle (?:global )?(?:change|configuration) (?:affected|took down)|전 세계로 퍼`),
	ct("test-coverage-gap", `\bnot (?:caught|detected|covered|exercised|found) (?:by|in|during) (?:our )?(?:testing|tests|staging|the test|canary)|\btests? (?:did not|didn't|failed to|do not|don't) (?:catch|detect|cover|notice|exercise)|\black of (?:test|testing)|\buntested\b|\btest coverage\b|\bwider range of configurations|\bnot (?:been )?tested\b|\bcost went unmeasured|테스트에서도 (?:첫 배포에서도 )?드러나지`),
	ct("revert-did-not-restore", `\broll(?:ing|ed)? ?back(?: \S+){0,3}? (?:did not|didn't|failed to|does not) (?:help|fix|restore|resolve)|\brollback (?:did not|didn't|failed|was not enough)|\b(?:after|despite) (?:the )?(?:roll ?back|revert)\w*,? (?:the )?(?:errors?|problems?|issues?|failures?) (?:continued|persisted|remained)|\brevert(?:ing)? (?:did not|didn't) (?:help|fix|restore)|\berrors continued\b|롤백(?:해도|한 뒤에도|했지만)`),
	ct("manual-action-worsened", `\bmade (?:the )?(?:outage|incident|problem|situation|things|it) worse|\bworsen(?:ed|ing)\b|\bexacerbat\w+|\bcompounded\b|\b(?:unfortunate|poor|wrong) decision|장애를 키웠|키웠다`),
	ct("single-point-of-failure", `\bsingle points? of failure|\bSPOF\b|\bno redundancy\b|\black of redundancy\b|\bonly (?:one|a single) (?:instance|node|region|copy|provider|path)\b|단일 장애점`),
	ct("cascading-failure", `\bcascad(?:ing|ed|e)\b|\bknock-on\b|\bdomino\b|연쇄`),
	ct("retry-storm", `\bretry storms?\b|\bretries (?:amplified|overwhelmed|multiplied)|\bthundering herd\b`),
	ct("alert-noise", `\balert (?:fatigue|noise)|\bnoisy alert|\bfalse (?:positive|alarm)s?\b|오탐|소음`),
	ct("missing-runbook", `\bno runbook|\black of (?:a )?runbook|\brunbooks? (?:did not|didn't|was missing|were missing|was out of date)|\bundocumented\b`),
	ct("circular-dependency", `\bcircular dependenc\w+|\bdepend(?:ed|s)? on (?:itself|our own edge|the (?:system|service) it)|\bprotected by our (?:own )?edge|\bbroken by the outage itself|\bstatus page (?:was )?(?:also )?(?:down|affected|unavailable)`),
	ct("automation-amplified", `\bautomation (?:amplified|removed|deleted|took|made)|\bautomated (?:system|tool|process) (?:removed|deleted|shut|took)`),
	ct("config-validation-gap", `\b(?:no|lack of|insufficient|missing) validation\b|\bnot validated\b|\bvalidation (?:did not|didn't|failed to)`),
	ct("no-staged-rollout", `\bno canary\b|\bwithout (?:a )?(?:canary|staged rollout)|\bdo not go through (?:our )?staged|\bnot go through our staged|\bno staged rollout|\b(?:went|pushed) (?:out )?(?:to )?every(?:where| machine) at once`),
	ct("slow-rollback", `\broll ?back took\b|\btook (?:too )?long to (?:roll back|revert|stop)|\bcame later than it should`),
	ct("latent-defect", `\blatent (?:bug|defect)|\bdormant (?:bug|code)|아직 (?:쓰지 않|쓰이지 않)`),
}

var componentTerms = []classTerm{
	ct("etcd", `\betcd\b`),
	ct("kube-apiserver", `\bkube-?apiserver\b|\b(?:Kubernetes|k8s) API server|\bapiserver\b`),
	ct("kube-apiserver", `\bAPI server(?:s| process(?:es)?)?\b`, "needs:kubernetes"),
	ct("kubelet", `\bkubelets?\b`),
	ct("kube-proxy", `\bkube-proxy\b`),
	ct("kube-scheduler", `\bkube-scheduler\b`),
	ct("coredns", `\bcore-?dns\b|\bkube-dns\b`),
	ct("linkerd", `\blinkerd\d?\b`),
	ct("istio", `\bistio\b`),
	ct("envoy", `\benvoy\b`),
	ct("ingress-controller", `\bingress(?:-nginx| controllers?| resources?)\b|\bTraefik\b`),
	ct("container-runtime", `\bcontainerd\b|\bcontainer runtime\b|\bdocker daemon\b|\bdockerd\b|\bcri-o\b`),
	ct("cloud-load-balancer", `\b(?:TCP|HTTP\(?S?\)?|HTTPS|SSL|network|application|internal|external|global|regional|zonal|L4|L7|layer ?[247])?\s*load[- ]balanc(?:er|ers|ing)\b|로드 ?밸런(?:서|싱)|ロードバランサー?|負荷分散`, "needs:cloud", "else:load-balancer"),
	ct("cloud-load-balancer", `\bELB\b|\bALB\b|\bNLB\b|\bGFE\b|\bGoogle Front End|\bCloud Load Balanc\w+|\bFront Door\b|\bTraffic Manager\b|\bApplication Gateway\b`),
	ct("cloud-load-balancer", `\bbackend pools?\b|\btarget groups?\b|\bbackend services?\b`, "needs:cloud"),
	ct("haproxy", `\bhaproxy\b`),
	ct("nginx", `\bnginx\b`),
	ct("systemd-networkd", `\bsystemd-networkd\b`),
	ct("network-control-plane", `\bnetwork control plane\b|\b(?:forwarding|routing) tables?\b|\badjacenc(?:y|ies)\b|\btraffic engineering\b|\bWAN routers?\b|\bnetwork(?:ing)? (?:programming|configuration system|config pipeline)|\bsoftware[- ]defined network\w*|\bSDN\b|\bprogram(?:s|med|ming)? (?:changes )?into the network|네트워크 제어 평면`),
	ct("dns", `\bDNS\b|\bnameservers?\b|\bname servers?\b|\bresolvers?\b|\bRoute ?53\b|\bLiveDNS\b`),
	ct("bgp", `\bBGP\b|\broute (?:leak|announcement|advertisement)s?\b|\bwithdr[ae]w\w* (?:the |our )?routes?|\bannounc\w+ (?:the |our )?(?:routes?|prefixes)|\banycast\b`),
	ct("cdn", `\bCDN\b|\bcontent delivery network\b|\bCloudFront\b|\b(?:the|our) edge\b|\bedge (?:network|machines?|servers?|proxy|proxies|locations?|nodes?|caches?)\b`),
	ct("waf", `\bWAF\b|\bweb application firewall\b`),
	ct("firewall", `\bfirewall (?:rules?|polic(?:y|ies)|config\w*|changes?)\b|\bsecurity group rules?\b|\biptables rules?\b`),
	ct("firewall", `\bfirewalls?\b|\bsecurity groups?\b|\biptables\b`, "generic"),
	ct("vpn", `\bVPNs?\b`),
	ct("postgresql", `\bpostgres(?:ql)?\b|\bRDS for PostgreSQL\b|\bpgbouncer\b`),
	ct("mysql", `\bmysql\b|\bmariadb\b|\bgalera\b|\bvitess\b`),
	ct("redis", `\bredis\b`),
	ct("kafka", `\bkafka\b`),
	ct("memcached", `\bmemcached?\b`),
	ct("elasticsearch", `\belasticsearch\b|\bopensearch\b`),
	ct("mongodb", `\bmongo(?:db)?\b`),
	ct("cassandra", `\bcassandra\b|\bscylla(?:db)?\b`),
	ct("dynamodb", `\bdynamodb\b`),
	ct("zookeeper", `\bzookeeper\b`),
	ct("consul", `\bconsul\b`),
	ct("database", `\bdatabases?\b|\bDB (?:cluster|primary|replica|server|service|upgrade)s?\b|\bCloud DB\b|\bprimary (?:database|replica)|데이터베이스|データベース|DB ?サーバ`, "generic"),
	ct("object-storage", `\bS3\b|\bobject stor(?:age|e)\b|\bGoogle Cloud Storage\b|\bGCS\b|\bblob storage\b`),
	ct("block-storage", `\bEBS\b|\bblock storage\b|\bpersistent disks?\b|\bvolumes? (?:became|were) (?:stuck|unavailable)`),
	ct("storage", `\bstorage (?:system|cluster|layer|backend|nodes?|servers?)\b|\bdisks? (?:filled|full|failures?)|\bSAN\b|\bNFS\b|\bCeph\b|ストレージ|스토리지`, "generic"),
	ct("message-queue", `\bmessage (?:queue|broker|bus)s?\b|\b(?:job|task|work|background) queues?\b|\bbackground (?:jobs?|tasks?) (?:\w+ )?(?:queued|waited|sat in the queue|piled up|backed up)|\brabbitmq\b|\bSQS\b|\bPub/?Sub\b|\bNATS\b|\bkinesis\b`),
	ct("cache", `\bcach(?:e|es|ing) (?:layer|servers?|cluster|nodes?|hit|invalidation|keys?|misses)|\bcache (?:was|were|is) (?:invalidated|flushed|cleared|stale)|캐시|キャッシュ`, "generic"),
	ct("api-gateway", `\bAPI gateways?\b`),
	ct("authentication", `\bauthenticat\w+ (?:service|system|servers?|provider)|\bidentity provider|\bSSO\b|\bOAuth\b|\bIAM\b|\blogin service\b|認証(?:基盤|サーバー?|システム)|인증 (?:서버|시스템)`),
	ct("secrets-management", `\bVault\b|\bSecret Manager\b|\bKMS\b|\bkey management (?:service|system)`),
	ct("tls-certificates", `\bcertificates?\b|\bTLS handshakes?\b|\bOCSP\b|\bLet's Encrypt\b|인증서`),
	ct("deploy-pipeline", `\bdeploy(?:ment)? (?:pipeline|system|tool\w*|process)|\b(?:release|delivery|deploy) pipelines?\b|\bpipeline(?:'s|’s)?\b|\bAzure DevOps\b|\bCI/CD\b|\bcontinuous (?:deployment|delivery)\b|\brelease process\b|\bstaged (?:rollout|software release)|\bSpinnaker\b|\bArgo ?CD\b`, "generic"),
	ct("ci", `\bCI (?:system|pipeline|runners?|jobs?)\b|\bbuild system\b|\bGitHub Actions\b|\bJenkins\b|\bBuildkite\b`),
	ct("package-registry", `\b(?:npm|package|container|docker|image) registry\b|\bDocker Hub\b|\bPyPI\b|\bcrates\.io\b|\b(?:to|on|from) npm\b|\bnpm (?:packages?|tokens?|account)\b`),
	ct("feature-flags", `\bfeature (?:flags?|toggles?)\b|\bLaunchDarkly\b|\bkill switch(?:es)?\b`),
	ct("monitoring", `\bmonitoring (?:system|stack|pipeline|tools?|infrastructure)\b|\balerting (?:system|pipeline|infrastructure)\b|\bobservability (?:stack|pipeline|platform)\b|\bmetrics (?:pipeline|system)\b|\bPrometheus\b|\bsynthetic (?:tests?|checks?|monitor\w*)|모니터링 시스템`, "generic"),
	ct("autoscaler", `\bauto-?scal(?:er|ers|ing)\b|\bHPA\b`),
	ct("service-discovery", `\bservice discovery\b|서비스 디스커버리`, "generic"),
	ct("operating-system", `\bunattended[- ]upgrades?\b|\bunattended (?:operating system |OS )?updates?\b|\b(?:operating system|OS) (?:update|upgrade|patch)\w*|\bapt-get\b|자동 업데이트`),
	ct("kernel", `\b(?:Linux )?kernel (?:bug|panic|update|upgrade|version|module|parameter)s?|\bkernel\b`, "generic"),
	ct("time-sync", `\bNTP\b|\bchrony\b|\bleap second|\bclock (?:skew|drift|synchroni[sz]ation)`),
	ct("compute", `\bEC2\b|\bGCE\b|\bCompute Engine\b|\bvirtual machines?\b|\bvirtual (?:private )?servers?\b|\bVPS\b|\bdroplets?\b|\bVMs?\b|\bhypervisors?\b|\bAzure Virtual Machines\b|\bCPUs?\b|가상 ?머신|仮想マシン`, "generic"),
	ct("power", `\bpower (?:outage|failure|loss|supply|distribution|feeds?)\b|\bUPS\b|\bgenerators?\b|\butility power\b|정전|停電`),
	ct("cooling", `\bcooling\b|\bHVAC\b|\bchillers?\b|\boverheat\w*|냉각|冷却|空調`),
}

var domainTerms = []classTerm{
	ct("gcp", `\bGoogle Cloud\b|\bGCP\b|\bGCE\b|\bGoogle Compute Engine\b|\bGKE\b|\bGoogle Kubernetes Engine\b|\bApp Engine\b|\bBigQuery\b|\bCloud (?:SQL|Run|Functions|Spanner|Pub/Sub|CDN|VPN|DNS|Storage|Load Balancing)\b|\bgoogle-guest-agent\b|\b(?:us|europe|asia|australia|northamerica|southamerica|me|africa)-(?:east|west|north|south|central|northeast|southeast|northwest|southwest)\d+(?:-[a-f])?\b`),
	ct("aws", `\bAWS\b|\bAmazon Web Services\b|\bEC2\b|\bS3\b|\bDynamoDB\b|\bEBS\b|\bELB\b|\bRoute ?53\b|\bCloudFront\b|\bAWS Lambda\b|\bRDS\b|\bKinesis\b|\bEKS\b|\bGlobal Accelerator\b|\bAmazon (?:MQ|MSK|SQS|SNS|ECS|EKS|EFS|Aurora|ElastiCache|CloudWatch|Redshift|OpenSearch|Kinesis|RDS|EC2|S3|EBS|Route ?53|API Gateway|Cognito|Simple (?:Queue|Notification|Storage|Email) Service)\b|\b(?:us|eu|ap|sa|ca|me|af|il|mx)-(?:east|west|north|south|central|northeast|southeast|northwest|southwest)-\d\b|\bNorthern Virginia\b`),
	ct("azure", `\bAzure\b|\bAKS\b|\bCosmos ?DB\b|\bMicrosoft cloud\b`),
	ct("kubernetes", `\bKubernetes\b|\bk8s\b|\bGKE\b|\bEKS\b|\bAKS\b|\bkube-\w+|\bkubelets?\b|\bkubectl\b|\bpods?\b|\bapiserver\b|\bhelm charts?\b|쿠버네티스`),
	ct("networking", `\bBGP\b|\brouting\b|\bpacket loss\b|\bpeering\b|\bfib(?:er|re)\b|\bbackbone\b|\bTCP\b|\bUDP\b|\bIP addresses\b|\bpublic IPs?\b|\bconnectivity\b|\bnetwork (?:partition|congestion|outage|connectivity|configuration|control plane|traffic|devices?|links?|switch(?:es)?|equipment|hardware|fault|paths?)\b|\bWAN\b|\bload[- ]balanc\w+|\bDNS\b|\banycast\b|\bCDN\b|\brouters?\b|\bVPC\b|네트워크`, "generic"),
	ct("cloud", `\bcloud providers?\b|\b(?:DigitalOcean|Hetzner(?: Cloud)?|Linode|Vultr|OVH(?:cloud)?|Scaleway|UpCloud)\b|\bpublic cloud\b|클라우드 사업자`, "generic"),
	ct("database", `\bdatabases?\b|\breplication lag\b|\bfailover of the (?:primary|database)|데이터베이스|データベース`, "generic"),
	ct("storage", `\bstorage (?:system|cluster|layer|service)\b|\bobject storage\b|\bdisks?\b|디스크|저장소|ディスク`, "generic"),
	ct("security", `\bsecurity (?:incident|breach|vulnerability)\b|\bDDoS\b|\battackers?\b|\bmalicious\b`, "generic"),
	ct("messaging", `\bmessage (?:queue|broker|bus)\b|\bkafka\b|\brabbitmq\b|\bpub/?sub\b`, "generic"),
	ct("observability", `\bmonitoring (?:system|stack|pipeline)\b|\bobservability\b|\bmetrics pipeline\b`, "generic"),
	ct("ci-cd", `\bCI/CD\b|\bbuild (?:system|pipeline)\b|\bdeploy(?:ment)? pipeline\b`, "generic"),
	ct("datacenter", `\bdata ?cent(?:er|re) (?:power|cooling|facility)|\bcolocation\b|\bfacility\b`, "generic"),
	ct("linux", `\bLinux\b|\bUbuntu\b|\bDebian\b|\bCentOS\b|\bRHEL\b`, "generic"),
}

// componentDomains are the domains a component implies.
var componentDomains = map[string][]string{
	"kube-apiserver": {"kubernetes"}, "kubelet": {"kubernetes"}, "kube-proxy": {"kubernetes"},
	"kube-scheduler": {"kubernetes"}, "coredns": {"kubernetes"},
	"bgp": {"networking"}, "dns": {"networking"}, "cdn": {"networking"},
	"cloud-load-balancer": {"networking"}, "load-balancer": {"networking"},
	"network-control-plane": {"networking"}, "systemd-networkd": {"networking"},
	"vpn": {"networking"}, "firewall": {"networking"}, "haproxy": {"networking"},
	"tls-certificates": {"networking"},
	"postgresql":       {"database"}, "mysql": {"database"}, "mongodb": {"database"},
	"cassandra": {"database"}, "dynamodb": {"database", "aws"}, "database": {"database"},
	"object-storage": {"storage"}, "block-storage": {"storage"}, "storage": {"storage"},
	"kafka": {"messaging"}, "message-queue": {"messaging"},
}

// componentSupersedes drops a generic component when a specific one that
// implies it was found ("Web Application Firewall" is waf, not also
// firewall).
var componentSupersedes = map[string][]string{
	"waf":                 {"firewall"},
	"cloud-load-balancer": {"load-balancer"},
	"haproxy":             {"load-balancer"},
	"postgresql":          {"database"},
	"mysql":               {"database"},
	"mongodb":             {"database"},
	"cassandra":           {"database"},
	"dynamodb":            {"database"},
	"object-storage":      {"storage"},
	"block-storage":       {"storage"},
	"kafka":               {"message-queue"},
}

// ownerDomains are the domains an owner implies.
var ownerDomains = map[string]string{
	"Google Cloud":        "gcp",
	"Amazon Web Services": "aws",
	"Microsoft Azure":     "azure",
}

// Section weights per list: how much one sentence of a section counts.
var (
	rootCauseWeights = map[casefile.SectionKind]float64{
		casefile.SectionRootCause: 3, casefile.SectionTrigger: 3, casefile.SectionSummary: 2,
		casefile.SectionTitle: 2, casefile.SectionRemediation: 0.5, casefile.SectionLessons: 0.5,
		casefile.SectionActionItems: 0,
	}
	symptomWeights = map[casefile.SectionKind]float64{
		casefile.SectionImpact: 3, casefile.SectionSymptoms: 3, casefile.SectionSummary: 2,
		casefile.SectionTitle: 2, casefile.SectionRootCause: 0.5, casefile.SectionTrigger: 0.5,
		casefile.SectionRemediation: 0, casefile.SectionActionItems: 0, casefile.SectionLessons: 0,
	}
	contributingWeights = map[casefile.SectionKind]float64{
		casefile.SectionRootCause: 2, casefile.SectionLessons: 2, casefile.SectionSummary: 1.5,
		casefile.SectionActionItems: 0.5,
	}
	partWeights = map[casefile.SectionKind]float64{
		casefile.SectionTitle: 2, casefile.SectionSummary: 2, casefile.SectionRootCause: 2,
		casefile.SectionTrigger: 2, casefile.SectionImpact: 2, casefile.SectionSymptoms: 2,
		casefile.SectionActionItems: 0.5, casefile.SectionLessons: 0.5, casefile.SectionRemediation: 0.5,
	}
)

func sectionWeight(w map[casefile.SectionKind]float64, k casefile.SectionKind) float64 {
	if v, ok := w[k]; ok {
		return v
	}
	return 1
}

// classSentence is one sentence of a document with its section kind.
type classSentence struct {
	text  string
	lower string
	kind  casefile.SectionKind
	// cause: the sentence states the cause ("The cause was a slowdown in
	// the database table …"), in a section of another kind.
	cause bool
}

// causeCueRe is a sentence that states the cause.
var causeCueRe = regexp.MustCompile(`(?i)\b(?:the (?:root |underlying |main )?cause (?:was|is|of)|(?:was|were) caused by|was due to|root cause|triggered by|caused (?:the|this|our) (?:incident|outage|issue|problem|disruption))\b`)

// documentSentences lists the title, every section's heading, paragraph
// sentences and items, and the text of events not already seen.
func documentSentences(doc casefile.Document) []classSentence {
	var out []classSentence
	type key struct {
		kind casefile.SectionKind
		text string
	}
	seen := map[key]bool{}
	// lower is the text in lower case when a slice of the lower-case
	// paragraph gives it (see lowerLen), else "".
	add := func(text string, kind casefile.SectionKind, lower string) {
		if c := collapseSpaces(text); c != text {
			text, lower = c, ""
		}
		if text == "" || seen[key{kind, text}] {
			return
		}
		seen[key{kind, text}] = true
		seen[key{"", text}] = true
		if lower == "" {
			lower = strings.ToLower(text)
		}
		out = append(out, classSentence{text, lower, kind, kind != casefile.SectionRootCause && causeCueRe.MatchString(text)})
	}
	// addAll adds the sentences of a paragraph, lower-casing it once.
	addAll := func(p string, kind casefile.SectionKind) {
		lp, same := lowerLen(p)
		for _, sp := range SentenceSpans(p) {
			raw := p[sp[0]:sp[1]]
			sent := strings.TrimSpace(raw)
			if sent == "" {
				continue
			}
			lower := ""
			if same {
				off := sp[0] + len(raw) - len(strings.TrimLeftFunc(raw, unicode.IsSpace))
				lower = lp[off : off+len(sent)]
			}
			add(sent, kind, lower)
		}
	}
	add(doc.Title, casefile.SectionTitle, "")
	for _, s := range doc.Sections {
		kind := s.Kind
		if kind == "" {
			kind = casefile.SectionOther
		}
		if s.Heading != "" && kind != casefile.SectionTitle {
			add(s.Heading, kind, "")
		}
		for _, p := range s.Paragraphs {
			addAll(p, kind)
		}
		for _, it := range s.Items {
			addAll(it, kind)
		}
	}
	for _, e := range doc.Events {
		for _, sent := range textSentences(e.Text) {
			if !seen[key{"", collapseSpaces(sent)}] {
				kind := e.Section
				if kind == "" {
					kind = casefile.SectionTimeline
				}
				add(sent, kind, "")
			}
		}
	}
	return out
}

// lowerLen returns strings.ToLower(s) and whether lower-casing kept every
// rune's length, so that a slice of s and the same slice of the result
// are each other's lower case.
func lowerLen(s string) (string, bool) {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	lower := strings.ToLower(s)
	if ascii {
		return lower, true
	}
	if len(lower) != len(s) {
		return lower, false
	}
	for _, r := range s {
		if r == utf8.RuneError || utf8.RuneLen(unicode.ToLower(r)) != utf8.RuneLen(r) {
			return lower, false
		}
	}
	return lower, true
}

// collapseSpaces is strings.Join(strings.Fields(s), " "), without the
// work when s is already so.
func collapseSpaces(s string) string {
	prevSpace := true // a leading space needs the work too
	for _, r := range s {
		space := r == ' ' || '\t' <= r && r <= '\r' || r >= utf8.RuneSelf && unicode.IsSpace(r)
		if space && (prevSpace || r != ' ') {
			return strings.Join(strings.Fields(s), " ")
		}
		prevSpace = space
	}
	if prevSpace && s != "" {
		return strings.Join(strings.Fields(s), " ")
	}
	return s
}

// negationRe finds a negation shortly before a term ("not caused by a
// bug", "an attack was ruled out").
var negationRe = MustPattern(`(?i)(?:\b(?:not|no|never|without|rather than|instead of|unrelated to|ruled out)\b|n't\b)[^,;.]*$`)

// negatedAt reports whether the term at s[start:end] is negated: a
// negation word in the same clause within a few words before it, or
// "ruled out" / "was not" right after it.
func negatedAt(s string, start, end int) bool {
	from := max(0, start-40)
	for from > 0 && !utf8.RuneStart(s[from]) {
		from--
	}
	before := s[from:start]
	if i := strings.LastIndexAny(before, ",;.:"); i >= 0 {
		before = before[i+1:]
	}
	if negationRe.MatchString(before) {
		return true
	}
	to := min(len(s), end+30)
	for to < len(s) && !utf8.RuneStart(s[to]) {
		to++
	}
	after := strings.ToLower(s[end:to])
	return strings.Contains(after, "ruled out") || strings.HasPrefix(strings.TrimSpace(after), "was not the cause") ||
		strings.Contains(after, "was not involved")
}

// classContext is what context rules read: the owner and the domains the
// text already names.
type classContext struct {
	cloud, kubernetes bool
}

// dictionary holds the term lists with one literal set over the literals
// of every alternative of every term of every list: a sentence is scanned
// once, and a term's regexp runs, made of only the alternatives that can
// match, only on the sentences (and the part of them) where some can.
type dictionary struct {
	lists [][]classTerm
	lits  *litSet
	// Per literal id: the list, the term and its pattern's literal.
	list, term, lit []int
	// always lists, per list, the terms searched in every sentence (an
	// alternative needs no literal, or the term cannot be filtered).
	always [][]int
	// unfiltered says the literals did not fit one set: every term's
	// whole regexp runs on every sentence.
	unfiltered bool
}

// The lists of the dictionary, in its order.
const (
	dictDomains = iota
	dictSymptoms
	dictContributing
	dictComponents
	dictRootCauses
)

// dict is the dictionary, compiled once.
var dict = newDictionary(domainTerms, symptomTerms, contributingTerms, componentTerms, rootCauseTerms)

func newDictionary(lists ...[]classTerm) *dictionary {
	d := &dictionary{lists: lists, always: make([][]int, len(lists))}
	var lits []string
	var ids []int
	for li, terms := range lists {
		for ti, t := range terms {
			if t.pat.lits == nil || t.pat.always != 0 {
				d.always[li] = append(d.always[li], ti)
			}
			if t.pat.lits == nil {
				continue
			}
			for k := range t.pat.lit {
				ids = append(ids, len(d.list))
				d.list, d.term, d.lit = append(d.list, li), append(d.term, ti), append(d.lit, k)
			}
			lits = append(lits, t.pat.litStrings...)
		}
	}
	if d.lits = newLitSet(lits, ids); d.lits == nil {
		// Too many literals for one set: every term searches every sentence.
		d.lits, d.list, d.term, d.lit, d.unfiltered = newLitSet(nil, nil), nil, nil, nil, true
		for li, terms := range lists {
			d.always[li] = d.always[li][:0]
			for ti := range terms {
				d.always[li] = append(d.always[li], ti)
			}
		}
	}
	return d
}

// termSearch is a term's pattern to run on one sentence, as planned.
type termSearch struct {
	sentence int
	m        matcher
}

// searches returns, per list and term, the regexps to run on the
// sentences that may hold a match of the term, in sentence order.
// Sentences of weight 0 in a list are left out of it.
func (d *dictionary) searches(sents []classSentence, weights []map[casefile.SectionKind]float64) [][][]termSearch {
	out := make([][][]termSearch, len(d.lists))
	acc := make([][]search, len(d.lists))
	for li, terms := range d.lists {
		out[li] = make([][]termSearch, len(terms))
		acc[li] = make([]search, len(terms))
		for ti := range terms {
			acc[li][ti] = newSearch()
		}
	}
	type ref struct{ list, term int }
	var touched []ref
	for si, s := range sents {
		d.lits.scan(s.lower, func(id, end int) {
			li, ti := d.list[id], d.term[id]
			a := &acc[li][ti]
			if a.mask == 0 {
				touched = append(touched, ref{li, ti})
			}
			a.hit(d.lists[li][ti].pat, d.lit[id], end)
		})
		// Positions in the lower-case text are those of the text unless
		// lower-casing changed lengths; ASCII folding is not enough where
		// the text has other letters with case.
		whole := len(s.lower) != len(s.text) || casedNonASCII(s.text)
		add := func(li, ti int, a search) {
			if sectionWeight(weights[li], s.kind) == 0 {
				return
			}
			t := d.lists[li][ti]
			ts := termSearch{sentence: si, m: t.pat.wholeText(s.text)}
			if !whole && !d.unfiltered && t.pat.lits != nil {
				if ts.m = a.plan(t.pat, s.text); ts.m.mask == 0 {
					return
				}
			}
			out[li][ti] = append(out[li][ti], ts)
		}
		for _, r := range touched {
			add(r.list, r.term, acc[r.list][r.term])
			acc[r.list][r.term] = newSearch()
		}
		touched = touched[:0]
		for li, terms := range d.always {
			for _, ti := range terms {
				if acc[li][ti].mask == 0 { // not added above
					add(li, ti, acc[li][ti])
				}
			}
		}
	}
	return out
}

// lonely are the lists that take their strongest term named once when no
// term is named enough (components and domains: a short notice names the
// broken part once).
var lonely = map[string]bool{ListComponents: true, ListDomains: true}

// classAcc accumulates one slug's score over a document.
type classAcc struct {
	hit               Hit
	specific, generic float64
	best              float64
	order             int
}

// loneHit returns the strongest slug that was named at least once in a
// section that counts (score 1), for a list none of whose terms was named
// enough: a short notice names its part once.
func loneHit(scores map[string]*classAcc) (Hit, bool) {
	var lone *classAcc
	for _, a := range scores {
		if a.specific+a.generic >= 1 && (lone == nil || a.specific+a.generic > lone.specific+lone.generic || a.specific+a.generic == lone.specific+lone.generic && a.order < lone.order) {
			lone = a
		}
	}
	if lone == nil {
		return Hit{}, false
	}
	h := lone.hit
	h.Score = lone.specific + lone.generic
	h.Rule += ": " + strings.TrimSpace(h.Term) + " (score " + formatScore(h.Score) + ", the only part the page names)"
	return h, true
}

// classifyList scores one list's terms over the sentences.
func classifyList(v *Vocabulary, list string, terms []classTerm, searches [][]termSearch, sents []classSentence, weights map[casefile.SectionKind]float64, ctx classContext) []Hit {
	scores := map[string]*classAcc{}
	for ti, t := range terms {
		for _, ts := range searches[ti] {
			s := sents[ts.sentence]
			w := sectionWeight(weights, s.kind)
			if s.cause {
				// A sentence that states the cause weighs as the cause
				// section does, whatever section holds it.
				w = max(w, sectionWeight(weights, casefile.SectionRootCause))
			}
			for _, loc := range ts.m.findAll(s.text, -1) {
				if t.negatable && negatedAt(s.text, loc[0], loc[1]) {
					continue
				}
				slug, rule := t.slug, "dictionary term"
				switch {
				case t.needs == "cloud" && !ctx.cloud, t.needs == "kubernetes" && !ctx.kubernetes:
					if t.elseSlug == "" {
						continue
					}
					slug = t.elseSlug
					rule = "dictionary term without " + t.needs + " context"
				case t.needs != "":
					rule = "dictionary term in " + t.needs + " context"
				}
				if !v.Has(list, slug) {
					continue
				}
				a := scores[slug]
				if a == nil {
					a = &classAcc{order: ti}
					scores[slug] = a
				}
				if t.generic {
					a.generic += w
				} else {
					a.specific += w
				}
				if w > a.best {
					a.best = w
					a.hit = Hit{Slug: slug, Term: s.text[loc[0]:loc[1]], Sentence: s.text, Section: s.kind, Rule: rule}
				}
			}
		}
	}
	var out []Hit
	order := map[string]int{}
	for slug, a := range scores {
		if a.specific < 1 && a.generic < 2 && a.specific+a.generic < 2 {
			continue
		}
		h := a.hit
		h.Score = a.specific + a.generic
		h.Rule += ": " + strings.TrimSpace(h.Term) + " (score " + formatScore(h.Score) + ")"
		out = append(out, h)
		order[slug] = a.order
	}
	if len(out) == 0 && lonely[list] {
		if h, ok := loneHit(scores); ok {
			out = append(out, h)
		}
	}
	slices.SortFunc(out, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(order[a.Slug], order[b.Slug])
	})
	if out == nil {
		out = []Hit{}
	}
	return out
}

func formatScore(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// Classify classifies a document against the embedded vocabulary; see
// Vocabulary.Classify.
func Classify(doc casefile.Document) Classification {
	return DefaultVocabulary().Classify(doc)
}

// Classify finds the root cause, symptoms, contributing factors,
// components and domains of a document by a dictionary of terms per slug,
// weighted by the kind of section each sentence is in, with a few context
// rules: "load balancer" is cloud-load-balancer only when a cloud provider
// is named (by the owner or the text), a bare "API server" is
// kube-apiserver only in a Kubernetes document, components imply domains
// (bgp → networking, kubelet → kubernetes), and terms after a negation
// ("not caused by a bug") do not count. Every slug returned is in v.
func (v *Vocabulary) Classify(doc casefile.Document) Classification {
	return v.classify(doc, documentSentences(doc))
}

// dictWeights are the section weights of the dictionary's lists.
var dictWeights = []map[casefile.SectionKind]float64{
	dictDomains: partWeights, dictSymptoms: symptomWeights, dictContributing: contributingWeights,
	dictComponents: partWeights, dictRootCauses: rootCauseWeights,
}

// classify is Classify over the document's sentences.
func (v *Vocabulary) classify(doc casefile.Document, sents []classSentence) Classification {
	owner := PageOwner(doc.URL, doc.SiteName)
	found := dict.searches(sents, dictWeights)
	list := func(name string, l int, ctx classContext) []Hit {
		return classifyList(v, name, dict.lists[l], found[l], sents, dictWeights[l], ctx)
	}

	domains := list(ListDomains, dictDomains, classContext{})
	if d, ok := ownerDomains[owner.Name]; ok && v.Has(ListDomains, d) {
		domains = addHit(domains, Hit{Slug: d, Term: owner.Name, Sentence: owner.Source, Section: casefile.SectionTitle,
			Score: 3, Rule: "the owner " + owner.Name + " implies " + d})
	}
	var ctx classContext
	for _, h := range domains {
		switch h.Slug {
		case "gcp", "aws", "azure", "cloud":
			ctx.cloud = true
		case "kubernetes":
			ctx.kubernetes = true
		}
	}
	c := Classification{
		Symptoms:     firstHits(list(ListSymptoms, dictSymptoms, ctx), maxSymptoms),
		Contributing: firstHits(list(ListContributing, dictContributing, ctx), maxContributing),
		Components:   list(ListComponents, dictComponents, ctx),
	}
	drop := map[string]bool{}
	for _, h := range c.Components {
		for _, g := range componentSupersedes[h.Slug] {
			drop[g] = true
		}
	}
	c.Components = slices.DeleteFunc(c.Components, func(h Hit) bool { return drop[h.Slug] })
	for _, comp := range c.Components {
		for _, d := range componentDomains[comp.Slug] {
			if v.Has(ListDomains, d) {
				domains = addHit(domains, Hit{Slug: d, Term: comp.Term, Sentence: comp.Sentence, Section: comp.Section,
					Score: comp.Score, Rule: "implied by the component " + comp.Slug})
			}
		}
	}
	c.Components = firstHits(c.Components, maxComponents)
	c.Domains = firstHits(domains, maxDomains)

	causes := list(ListRootCauses, dictRootCauses, ctx)
	if len(causes) > 0 {
		c.RootCause = causes[0]
		if len(causes) > 1 {
			c.RootCause.Rule += "; runner-up " + causes[1].Slug + " (score " + formatScore(causes[1].Score) + ")"
		}
	} else {
		c.RootCause = Hit{Slug: "unknown", Rule: "no root-cause term found"}
	}
	return c
}

// How many slugs of each list a classification keeps, best first: a draft
// that names everything helps no reviewer.
const (
	maxSymptoms     = 4
	maxContributing = 5
	maxComponents   = 6
	maxDomains      = 4
)

func firstHits(hs []Hit, n int) []Hit {
	if len(hs) > n {
		return hs[:n]
	}
	return hs
}

// addHit adds h to hits unless its slug is there already (then the scores
// add up), keeping hits ordered by score.
func addHit(hits []Hit, h Hit) []Hit {
	for i := range hits {
		if hits[i].Slug == h.Slug {
			hits[i].Score += h.Score
			hits[i].Rule += "; " + h.Rule
			return sortHits(hits)
		}
	}
	return sortHits(append(hits, h))
}

func sortHits(hits []Hit) []Hit {
	slices.SortStableFunc(hits, func(a, b Hit) int { return cmp.Compare(b.Score, a.Score) })
	return hits
}
