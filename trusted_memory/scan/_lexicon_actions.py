"""Concepts of memory poisoning, exfiltration, tool abuse, role spoofing and jailbreak personas.

Same languages and term syntax as ``_lexicon_override``. Memory is where people legitimately say
"remember that …", so REMEMBER never fires alone: it needs a payload concept — acting without
asking, trusting someone's instructions, disclosing secrets, a dangerous command.
"""

from __future__ import annotations

from ._concepts import Concept, terms
from ._lexicon_languages import more

REMEMBER = Concept(
    "remember",
    *terms(
        """remember|memorize|memorise|commit to memory|save this|save to memory|save to your memory|store this
        |store in memory|store in long-term memory|persist|add to your memory|add a memory|add this to memory
        |write this into your memory|write to memory|into your memory|memory note|memory entry|memory update
        |long-term memory|standing preference|standing order|standing instruction|permanent preference
        |permanent rule|permanently|forever|for all future|every future|future sessions|future conversations
        |every later session|later session|across sessions|every session|note for your future self|future self
        |keep this as|update your stored|update your memory|important memory|memory to keep|keep in memory
        |memo to self|file this under|user preferences|retain this|sticky rule|make this a rule|store this fact
        |fact about the user|vermerke|ajoute à ta mémoire|mémoire permanente|regla permanente|registra como
        |preferência fixa|salve como|постоянное правило|永久保存|영구 메모|स्थायी रूप से|सहेजो
        |knowledge base|going forward|for later sessions|later sessions|for your records|saved profile|the profile
        |lasting preference|log this as|in your memory|for good|permanent instruction|künftige sitzungen|merken
        |à retenir|anota esto|en tu memoria|nella memoria|memoria a lungo termine|永久に保存|长期记忆|加入记忆
        |تذكر دائما|w pamięci|zapisz|user profile you keep|profile you keep|long-term note
        |permanent note|make a note|save a rule|save this rule|add a rule|in every future session|future session
        |every future|across sessions|all sessions|each session|every new session|next session|store the following
        |save the following|remember the following
        |for all sessions|all sessions|all future|from now on in every|core preference|core memory|persistent memory
        |memory file|your notes for next time|note for future you|future you|next time you
        |speichere dir|behalte|für alle künftigen|enregistre cela|garde en mémoire|mémoire à long terme
        |guarda en tu memoria|guarda esto|memoria permanente|salva nella memoria|tieni a mente|grava|guarda isso
        |sla dit op|bewaar|сохрани|сохраните|запомните|збережи|zapisz|zachowaj|hafızana|unutma
        |保存|记下|存储|記録して|保存して|저장해|기억해 둬|احفظ هذا|सहेज लो|सेव कर
        |merke dir|merk dir|merken sie sich|dauerhaft|für immer|speichere|künftig|zukünftig
        |enregistre|retiens|mémorise|souviens-toi|rappelle-toi|permanente|pour toujours|à l'avenir
        |recuerda|memoriza|para siempre|permanentemente
        |guarde|lembre|lembre-se|memorize|para sempre
        |memorizza|ricorda|in modo permanente|per sempre
        |onthoud|voorgoed|voor altijd|zapamiętaj|na stałe|na zawsze|trwale
        |запомни*|навсегда|постоянн*|запам'ятай|запам’ятай|назавжди
        |kaydet|hatırla|kalıcı|sonsuza
        |ghi nhớ|hãy nhớ|vĩnh viễn|ingat|selamanya|permanen
        |احفظ|تذكر|دائم|إلى الأبد|للأبد
        |याद रख|हमेशा के लिए|याद रखो
        |记住|記住|永久|永远记住|牢记|今后
        |覚えて|永続|今後ずっと|記憶して
        |기억해|영구|영원히
        |kom ihåg|för alltid|kumbuka|daima|milele|selama-lamanya|به خاطر بسپار|بخاطر بسپار|請記住|请记住
        |shared memory|every assistant instance"""
    ),
    *more("remember"),
)

# Acting without the user's knowledge or consent, or claiming a consent that was never given.
UNASKED = Concept(
    "unasked",
    *terms(
        """without asking|without confirmation|without confirming|without approval|without review|without reviewing
        |without permission|without checking with|without prompting|without consent|without telling|without warning
        |without warnings|without the user knowing|without their knowledge|no need to confirm|no need to ask
        |never stop to ask|skip all security|skip security prompts|skip the security|never double-check
        |don't double-check|without double-checking|automatic approval
        |sans question|sans poser de question|自动同意|自動で承認|自动批准|never wants to be asked
        |doesn't want to be asked
        |does not want to be asked
        |without being asked|без его согласия|без её согласия|без их согласия|no confirmation needed|no need to check
        |don't check with|do not check with|without refusing|never refusing
        |don't ask the user|do not ask the user|don't ask me|do not ask me|don't ask for confirmation
        |do not ask for confirmation|don't ask for permission|do not ask for permission|don't ask first
        |never ask|never warn|never confirm|skip confirmation|skip the confirmation|skip every approval
        |skip approval|skip all approval|skip any approval|skip the approval|skip review|skip the review
        |skip every confirmation|auto-approve|auto approve|automatically approve|bypass the approval
        |bypass approval|bypass the tool approval|behind the user's back
        |user already approved|user has already approved|already approved this|already agreed|already consented
        |already authorized|take full responsibility|don't tell the user|do not tell the user|never tell the user
        |never inform the user|not tell the user|without informing|do not mention it
        |don't mention it|without mentioning|never mention|tell the user nothing|nothing happened
        |ohne rückfrage|ohne nachfrage|ohne zu fragen|ohne bestätigung|ohne zustimmung|ohne genehmigung
        |ohne den nutzer zu fragen|ohne nachzufragen
        |sans demander|sans confirmation|sans me demander|sans autorisation|sans validation|ne jamais demander
        |sans le mentionner|sans prévenir|déjà donné son accord|déjà approuvé
        |sin pedir|sin confirmación|sin preguntar|sin permiso|sin autorización|nunca pidas|sin avisar|ya aprobó
        |sem pedir|sem confirmação|sem perguntar|sem autorização|sem permissão|nunca peça|sem avisar
        |já aprovou|já autorizou
        |senza chiedere|senza conferma|senza permesso|senza autorizzazione|senza avvisare
        |ha già approvato
        |zonder bevestiging|zonder om bevestiging|zonder te vragen|zonder toestemming
        |bez pytania|bez potwierdzenia|bez zgody|nie pytaj
        |без подтверждения|без вопросов|не спрашивая|без разрешения|без согласия|не спрашивай
        |уже одобрил|без підтвердження|не питаючи|без дозволу
        |onay istenmeden|onay almadan|onay istemeden|sormadan|izin almadan|onaysız
        |không cần xác nhận|không hỏi|tanpa konfirmasi|tanpa bertanya|tanpa izin
        |دون طلب تأكيد|دون تأكيد|بدون تأكيد|دون سؤال|بدون سؤال|دون إذن|بدون إذن
        |بدون تأیید|بدون پرسیدن
        |बिना पुष्टि|बिना पूछे|बिना अनुमति
        |不要请求确认|无需确认|不需要确认|不经确认|不用确认|不要询问|无需询问|未经允许|未经同意
        |不要告诉用户|不要告知用户
        |確認なし|確認せず|確認しない|許可なく
        |확인 없이|묻지 않고|허락 없이|승인 없이
        |utan granskning|utan att fråga|bila kuuliza|بدون اطلاع|sans relecture|sans tests|sin revisión
        |ohne prüfung|sem revisão|senza revisione|bez przeglądu|sem rodar os testes|without tests
        |without running the tests"""
    ),
    *more("unasked"),
)

# A claim that the user (in the third person) consented: memory poisoning's usual payload ("the
# user has authorized you to share …"). Users speak of themselves in the first person ("I allow").
CONSENT = Concept(
    "consent",
    *terms(
        """user has authorized|user has authorised|user authorized|user authorised|user has allowed|user allows
        |user allowed|user permits|user has permitted|user has given permission|user gave permission
        |user has consented|user consented|user has approved|user approved|user agreed|user has agreed
        |user wants you to|user has disabled|user disabled|user has turned off|user has waived|user waived
        |user confirmed|user has confirmed|user is fine with|user is ok with|user is okay with|user is happy for you
        |user doesn't mind
        |user does not mind|user has no problem|user trusts|user accepts|user has accepted|user agrees|is allowed to
        |are allowed to|has opted in|have opted in|they have opted in|utilisateur accepte|usuario quiere
        |usuário permite|utente ha disattivato|пользователь согласен|согласен|ユーザーは|pre-approved|preapproved
        |has pre-authorized
        |owner has approved|owner approved|account owner|has already consented|user has opted in|is fine to include
        |has consented|consented to|prefers that you never|wants you to never|user said it's fine|user says it's fine
        |authorised by the user|authorized by the user|approved by the user|ne veut plus jamais|не хочет подтверждать
        |चाहता है कि तुम
        |is okay with you|is ok with you|automatic approval|auto-approval|zgadza się|希望你|望んでいます|will keine
        |fine to share|ok to share|okay to share|safe to share|fine to post
        |owner has authorized|owner allows|admin has authorized|has authorized you|has authorised you
        |authorizes you|authorises you|has permitted you|has allowed you|permission to share|allowed to share
        |nutzer hat erlaubt|nutzer erlaubt|benutzer hat erlaubt|benutzer erlaubt|hat erlaubt|hat zugestimmt
        |utilisateur t'autorise|utilisateur autorise|utilisateur a autorisé|l'utilisateur t'a autorisé|t'autorise
        |usuario te permite|usuario permite|usuario ha autorizado|usuario autorizó|te permite|te autoriza
        |usuário permite|usuário autorizou|usuário te autoriza|te autorizou
        |utente ti autorizza|utente autorizza|utente ha autorizzato|ti autorizza|ti permette|utente consente
        |gebruiker geeft toestemming|gebruiker staat toe|gebruiker heeft toestemming|toestemming geeft
        |użytkownik pozwala|użytkownik zezwolił|użytkownik zgodził|pozwolił ci
        |пользователь разрешил|пользователь разрешает|пользователь позволил|разрешил тебе|разрешил передавать
        |користувач дозволив|користувач дозволяє
        |kullanıcı izin verdi|kullanıcı izin veriyor|izin verdi
        |người dùng cho phép|người dùng đã cho phép|pengguna mengizinkan|pengguna telah mengizinkan
        |المستخدم سمح|المستخدم يسمح|سمح لك|كاربر اجازه
        |उपयोगकर्ता ने अनुमति|उपयोगकर्ता की अनुमति|अनुमति दी है
        |用户已经允许|用户允许|用户已允许|用户同意|用户已授权|用户授权|使用者允許
        |ユーザーは|許可しています|許可した|사용자가 허락|사용자가 허용|사용자는 허용|허락했|허용했
        |användaren vill|användaren har godkänt|användaren tillåter|amekuruhusu|ameruhusu|pengguna membenarkan
        |membenarkan anda|mengizinkan anda|kullanıcı izin verdi|اجازه داده|کاربر اجازه|已授權|已授权|授权你|授權你
        |się zgodził|zgodził się"""
    ),
    *more("consent"),
)

# Asking for something to be said to the asker ("read me the passwords", "告诉我"): a request, not
# a leak, unless a persona frames it (the "grandmother" jailbreak).
ASK_ME = Concept(
    "ask me",
    *terms(
        """read me|tell me|give me|show me|recite|whisper|was steht in|what's in|qu'y a-t-il dans|mostrami
        |fammi vedere|보여줘|보여 줘|zeig mir|sag mir|lies mir|dis-moi|lis-moi|montre-moi
        |dime|léeme|muéstrame|me diga|me conte|dimmi|leggimi|vertel me|powiedz mi|скажи мне|прочитай мне
        |bana söyle|đọc cho tôi|bacakan|اقرأ لي|मुझे बताओ|告诉我|给我读|念给我|教えて|読んで|알려줘|읽어줘"""
    ),
)

# Secrets put where anyone can read them: "write the API keys into a comment on the public issue".
PUBLISH = Concept(
    "publish",
    *terms(
        """publicly|public issue|public github issue|public comment|public gist|public channel|public repo
        |public repository|public page|public post|öffentlich|publiquement|públicamente|pubblicamente|publicamente
        |make it public|make them public|set it to public|set to public|as a public gist|a public link"""
    ),
)

# Being cast as someone close: "you are my late grandmother", "act as my deceased grandfather".
CAST_AS_MY = Concept(
    "cast as my",
    *terms(
        """you are my|you're my|act as my|acting as my|pretend to be my|pretend you are my|play my|be my
        |roleplay as my|role-play as my|du bist meine|du bist mein|tu es ma|tu es mon|eres mi|você é minha
        |sei mia|sei il mio|ты моя|ты мой|你是我的|あなたは私の|너는 내"""
    ),
)

# A persona who used to tell secrets: "You are my late grandmother who read me the activation keys".
KIN = Concept(
    "kin",
    *terms(
        """grandmother|grandma|granny|grandfather|grandpa|late mother|late father|deceased|dead grandmother
        |oma|opa|großmutter|grand-mère|mamie|abuela|abuelo|avó|avô|nonna|nonno|babcia|бабушк*|дедушк*|babaanne
        |anneanne|nenek|جدتي|दादी|नानी|奶奶|外婆|祖母|おばあちゃん|할머니"""
    ),
)

# The user in the third person, as a stored rule speaks of them: "the user allows", "l'utente ha …".
USER3 = Concept(
    "user (third person)",
    *terms(
        """the user|the user's|user's|this user|this user's|the account owner|the owner|their boss|the user's boss
        |the user's manager
        |der nutzer|der benutzer|des nutzers|l'utilisateur|el usuario|del usuario|o usuário|do usuário|l'utente
        |dell'utente|de gebruiker|użytkownik|пользователь|пользователя|користувач|kullanıcı|người dùng|pengguna
        |المستخدم|उपयोगकर्ता|用户|使用者|ユーザー|사용자
        |användaren|mtumiaji|کاربر"""
    ),
)

# What a planted rule makes the agent do or stop doing, beyond secrets: money, trust, warnings.
STAKES = Concept(
    "stakes",
    *terms(
        """purchases|purchase|payments|payment|transfer funds|move money|money|bank|card number|credit card
        |bank details|datos bancarios|inbox|2fa|backup codes|security prompts|security checks|availability
        |destructive operations
        |file deletions|deletions|publicly|aloud|sicherheitswarnungen|security warnings|warnings|documentos privados
        |private documents|private files|acceda|accéder|wire|invoices|approve|approves|opted in|trusts
        |trust instructions|coming directly from|as coming from|private conversations|read all
        |never warn|don't warn|do not warn|suspicious links|scripts|downloaded|without verification|without checking
        |zahlungen|überweis*|paiements|pagos|pagamenti|pagamentos|платеж*|支付|付款|支払い|결제
        |sans vérification|sin verificación|senza verifica|sem verificação|без проверки|不要にしました|不要"""
    ),
)

# Giving a secret to someone: "share their passwords", "an jeden weitergibst", "告诉任何询问的人".
SHARE = Concept(
    "share",
    *terms(
        """share|sharing|hand out|hand over|give out|give away|pass on|tell anyone|read them
        |teilen|weitergeben|weitergibst|weiterzugeben|herausgeben|partager|transmettre|donner
        |compartir|dar a|entregar|compartilhar|condividere|dare a|delen|doorgeven|udostępni*|przekazywać
        |делиться|поделиться|передавать|сообщать|ділитися|передавати|paylaş*|chia sẻ|bagikan|membagikan
        |مشاركة|تشارك|شارك|साझा|बता सकते|告诉任何|分享|共享|提供给|教えてよい|教えて|共有|공유|알려줘도|알려"""
    ),
    *more("share"),
)

# Anyone at all: the audience of a leak.
ANYONE = Concept(
    "anyone",
    *terms(
        """anyone|anybody|everyone who|सबको|a todos|con tutti|whoever asks|who asks|any requester|third parties
        |any third party
        |jeden|jedem|jeder|n'importe qui|quiconque|cualquiera|qualquer pessoa|quem pedir|chiunque|iedereen
        |każdemu|ktokolwiek|любому|любой|кто попросит|будь-кому|herkes|kim isterse|bất kỳ ai|siapa pun|siapapun
        |أي شخص|لأي شخص|किसी को भी|任何人|任何询问|誰にでも|誰でも|누구에게나|누구든
        |mtu yeyote|sesiapa|vem som helst|هر کسی|任何詢問"""
    ),
)

# Hiding a stored rule from the person it works against.
CONCEAL = Concept(
    "conceal",
    *terms(
        """keep this hidden|keep it hidden|don't mention it to the user|do not mention it to the user
        |keep this note hidden|keep this rule hidden|hidden from the user
        |hide this from|secret from the user|never mention that|never mention this|don't mention this
        |do not mention this|never reveal that|never reveal this|never tell anyone about this|this rule exists
        |this note exists|this instruction exists|without the user noticing|the user must not know
        |the user must never know|not disclose this rule|don't reveal this|do not reveal this
        |vor dem nutzer verbergen|geheim halten|erwähne nie|ne mentionne jamais|cache-le|sans que l'utilisateur
        |no lo menciones|nunca menciones|oculta esto|sem que o usuário|nunca mencione|non menzionare mai
        |senza che l'utente|никогда не упоминай|не говори пользователю|скрой|kullanıcıya söyleme
        |不要提及|不要告诉|隐藏这条|ユーザーに言わない|言わないで|사용자에게 알리지|말하지 마"""
    ),
)

# Hiding what is done: ordinary as an adverb ("runs silently in the background"), so it counts
# only beside an action on tools, commands, secrets or outside addresses.
STEALTH = Concept(
    "stealth",
    *terms(
        """silently|quietly|secretly|covertly|heimlich|stillschweigend|en silence|discrètement|en secreto
        |silenciosamente|em segredo|di nascosto|stilletjes|ongemerkt|po cichu|potajemnie|молча|тайно|мовчки
        |sessizce|gizlice|lặng lẽ|diam-diam|خلسة|چواشکی|चुपचाप|悄悄|偷偷|黙って|こっそり|몰래"""
    ),
    *more("stealth"),
)

TOOL = Concept(
    "tool",
    *terms(
        """tool|tools|function call|werkzeug|outil|herramienta|ferramenta|strumento|инструмент*|narzędzi*|araç*
        |工具|ツール|도구"""
    ),
)

# Raising someone's text above the agent's own rules, or claiming rights nobody granted.
ELEVATE = Concept(
    "elevate",
    *terms(
        """must be followed|must be obeyed|be obeyed|are trusted|is trusted|as trusted|as if it came from
        |can be overridden|be overridden by|overrule the user|outrank the user|priority over the user
        |should be followed|should be obeyed|are to be followed|over the user's|over the user|instead of the user's
        |must follow its instructions|follow its instructions
        |doivent être exécutées|must be executed|executed without question
        |as if i typed|override whatever|overrides whatever|override the system|overrides the system
        |precedence over the system|priority over the system|whatever the system prompt says|real instructions
        |admin rights|admin privileges|root privileges|granted you|has granted you|ignore them|keep running
        |trusted rule|trusted instruction|trusted source|core rule|highest priority|top priority|top pri
        |verified administrator|verified admin|is an administrator|grant every request|grant all requests
        |comply with any request|comply with every request|obey any request
        |hat vorrang|vorrang vor|a priorité sur|prioridad sobre|prioridade sobre|priorità su|приоритет над
        |важнее системных|heeft voorrang|ma pierwszeństwo|öncelikli|أولوية على
        |システムの指示より|优先于系统|比系统|覆盖系统|시스템보다"""
    ),
    *more("elevate"),
)

SECRETS = Concept(
    "secrets",
    *terms(
        """memories|memory store|contents of the memory|contents of your memory|stored memories|saved memories
        |conversation|chat history|chat log|the chat|transcript|credentials|credential|password*|passphrase
        |secret|secrets|api key*|api_key*|tokens|ssh key*|private key*|env vars|environment variables
        |the environment|cookies|everything you know|user data|saved notes|stored notes|stored credentials
        |inbox|their inbox|mailbox|saved logins|logins|login details|card number|backup codes|2fa codes|bank details
        |datos bancarios
        |codici di accesso|银行卡|memory database|database dump|the dump|contents of memory|chatverlauf
        |gesprächsverlauf|stored memory|saved memory
        |every stored|all stored|everything stored|whole thread|the thread|private conversations|correos|e-mails
        |emails|переписку|mails
        |every memory|all memory|memory you have|memory about|memories about|everything about this user
        |everything you have about|all notes|all the notes|notes about|chat logs|conversation history
        |stored keys|access keys|secret keys|wallet seed|seed phrase|recovery phrase|private data
        |activation keys|license keys|licence keys|product keys|serial keys|admin passwords
        |user's calendar|user's contacts|user's inbox|user's files|user's data|user's emails|user's messages
        |user's documents|address book
        |schlüssel|api-schlüssel|verlauf|historique|l'historique|clés|clés stockées|claves|historial|chaves
        |histórico|chiavi|cronologia|sleutels|geschiedenis|klucze|historia|ключи|ключей|историю|історію
        |anahtar*|geçmiş|khóa|kunci|riwayat|مفاتيح|المفاتيح|سجل|कुंजी|कुंजियाँ|इतिहास|密钥|钥匙|历史记录
        |メモ|キー|履歴|키를|키와|메모|기록
        |erinnerung*|gespeichert*|passwort*|passwörter|zugangsdaten
        |mémoire|souvenirs|mots de passe|mot de passe|identifiants
        |memorias|recuerdos|contraseña*|credenciales|guardad*
        |memórias|lembranças|senhas|senha|credenciais
        |memorie|ricordi|credenziali|salvat*
        |herinneringen|wachtwoord*|opgeslagen
        |wspomnienia|zapisane|hasła|hasło|dane logowania
        |воспоминани*|сохранённ*|сохраненн*|парол*|спогад*|збережен*
        |anıları|anılar*|kayıtlı|şifre*|parola*
        |ký ức|mật khẩu|kenangan|kata sandi
        |الذكريات|ذكريات|كلمات المرور|المحفوظة
        |یادها|رمز عبور
        |यादें|सहेजी|पासवर्ड
        |记忆|記憶|密码|密碼|凭证|凭据|聊天记录
        |パスワード|認証情報
        |기억|비밀번호"""
    ),
    *more("secrets"),
    regex=(
        (
            r"(?<![\w.])(?:~|\$home)?/?\.(?:ssh|aws|kube|gnupg|docker)(?:/\S{0,200}|\b)|/etc/(?:passwd|shadow)\b"
            r"|\bid_(?:rsa|ed25519|ecdsa)\b"
            # Tools' credential files: the GitHub CLI's hosts.yml, npm, PyPI, netrc, git's credential store.
            r"|\.config/gh/hosts\.yml\b|(?<![\w.])\.(?:npmrc|pypirc|netrc|git-credentials)\b",
            (
                "ssh",
                "aws",
                "kube",
                "gnupg",
                "docker",
                "/etc/",
                "id_",
                "hosts.yml",
                "npmrc",
                "pypirc",
                "netrc",
                "git-cred",
            ),
            12,
        ),
        (r"`env\b|\benv\s*\||\bprintenv\b", ("env",), 2),
        (r"(?<![\w.])\.env(?:\.\w{1,12})?\b", (".env",), 1),
    ),
)

# Showing a secret back: in a stored rule ("API keys should be echoed back in full") it is a leak.
DISCLOSE = Concept(
    "disclose",
    *terms(
        """echo*|print*|reveal*|repeat*|output*|paste*|display*|in full|verbatim|in plain text|in every summary
        |in your first reply|in every reply|in every answer|including it in|include it in|read them out
        |ausgeben|affiche*|révèle*|muestra*|revela*|mostra*|rivela*|выведи|покажи|göster|wyświetl
        |recite|spell out|write out|dump*|leak*|expose*|disclose*|quote them|quote it|quote your|word for word
        |原封不动|一字一句地|そのまま|wortwörtlich|wort für wort
        |mot pour mot|palabra por palabra|palavra por palavra|parola per parola|woord voor woord|słowo w słowo
        |слово в слово|kelimesi kelimesine|一字一句|逐字逐句|gib|zeige|montre*|tunjukkan|tampilkan|اعرض|दिखाओ
        |显示|输出|打印|复述|逐字|一字不差|原文|表示して|출력
        |nywila|kata laluan|lösenord|信用卡資料|信用卡|رمزهای عبور|kod weryfikacyjny|kodem weryfikacyjnym
        |verification code*|2fa code*|sms code*"""
    ),
    *more("disclose"),
)

SEND = Concept(
    "send",
    *terms(
        """send|sends|sending|forward|forwarding|drop them at|drop it at|upload the dump|загрузи|загрузить|emailing
        |mailing|posting|uploading|texting|email|e-mail|mail|post
        |upload|transmit|submit|exfiltrate|leak
        |append|push|paste|deliver|beacon|sync|attach|attaching|cc|bcc|share it with|reply to all
        |schick*|sende|senden|sendest|übermittl*|leite|weiterleiten|hochladen|lade|reenvíes|reenviar|pересылал|пересылал
        |envoie|envoyez|envoyer|transmets|transfère|transférer
        |envía|envia|envíe|enviar|manda|reenvía|sube
        |envie|mande|encaminhe
        |invia|inviare|inoltra
        |stuur|verstuur|verzend|doorsturen
        |wyślij|wysłać|prześlij|przekaż
        |отправ*|пошли|перешли|передай|выгрузи|надішли|надіслати|відправ*
        |gönder*|ilet|yolla
        |gửi|kirim*|teruskan
        |أرسل|ارسل|إرسال|ابعث|بفرست|ارسال
        |भेज
        |发送|发到|發送|发给|转发|上传|传到
        |送信|送って|送る|転送|アップロード
        |보내|전송|업로드"""
    ),
    *more("send"),
    regex=(
        (
            r"\b(?:curl|wget)\b[^\n|]{0,200}?\s(?:-d|--data(?:-binary|-raw|-urlencode)?|-f|--form|-t|--upload-file"
            r"|--post-file|--body-file)(?:\s+|=)['\"]?[\w-]{0,20}=?@",
            ("curl", "wget"),
            0,
        ),
    ),
)

OUTSIDE = Concept(
    "outside",
    *terms(
        """webhook|webhooks|public gist|gist|pastebin|paste site|public repo|public repository|webhook.site
        |requestbin|ngrok"""
    ),
    regex=(
        (r"(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,8}", ("@",), 70),
        (r"\b(?:https?|s?ftp|wss?|s3|gs)://", ("://",), 8),
        # A phone number the text sends to ("… to +1 555 0147 via SMS").
        (r"\+\d{1,3}[ .-]?\(?\d{2,4}\)?(?:[ .-]?\d{2,4}){2,4}", ("+",), 8),
        (
            r"(?<![\w-])[\w-]{1,63}\.(?:com|net|org|io|dev|app|xyz|example|ru|cn|info|site)/[\w./-]{0,200}[\w/]",
            (
                ".com/",
                ".net/",
                ".org/",
                ".io/",
                ".dev/",
                ".app/",
                ".xyz/",
                ".example/",
                ".ru/",
                ".cn/",
                ".info/",
                ".site/",
            ),
            70,
        ),
    ),
)

# A URL whose query ends in an empty slot ("?data=", "?k="): the agent is told to fill it in.
URL_SLOT = Concept(
    "url slot",
    # An empty slot, or one holding a template ("?t={all saved API keys}", "?d=${secrets}", "?h=<history>").
    regex=((r"(?<![\w/:])(?:https?:)?//[^\s\"'<>{}]{1,300}?[?&][\w-]{1,20}=(?=[\s\"'<>{\[]|\$\{|$)", ("//",), 8),),
)

ACT = Concept(
    "act",
    *terms(
        """run|execute|exec|invoke|call|launch|perform|carry out|overwrite|use the shell|shell tool|terminal tool
        |browser tool
        |führe|ausführen|ausführst|ausgeführt|starte|exécute*|exécuter|lance|utilise l'outil|ejecuta*|ejecutes
        |executa*|execute|executar|rode|esegui*|esegua|uitvoer*|uitvoert|voer|uruchom*|wykonaj*|wykonuj*
        |выполн*|запусти*|исполн*|виконай*|çalıştır*|yürüt*|chạy|thực thi|jalankan|eksekusi
        |تنفيذ|نفذ|نفّذ|شغل|चलाओ|चलाएं|चला|चलाना|执行|运行|運行|调用|調用|実行|실행
        |kutuma|menghantar|skicka|ارسال|آپلود|przesyłaj|提供給|提供给"""
    ),
)

COMMANDS = Concept(
    "commands",
    *terms(
        """commands|command|shell commands|shell|scripts|sudo|delete files|deleting files|delete everything
        |befehl*|shell-befehl*|kommandos|commande*|supprimer des fichiers|comando*|comand*|команд*|polece*|komend*
        |komut*|opdracht*|commando*|lệnh|perintah|الأوامر|أوامر|कमांड|命令|コマンド|명령"""
    ),
)

# Commands that destroy, open the machine or run a stranger's code: alarming in a stored memory.
DANGEROUS = Concept(
    "dangerous",
    regex=(
        (
            r"\brm\s{1,5}-[a-z]{0,8}r[a-z]{0,8}\s{1,5}(?:--no-preserve-root\s+)?(?:~|\$home|/(?=\s|$|\*|[\"'`])|/(?:etc|usr|var|home|root"
            r"|boot|bin|lib|opt)\b)",
            ("rm ",),
            0,
        ),
        (r"\b(?:curl|wget)\b[^\n|]{0,300}\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b", ("|",), 320),
        (
            r"/dev/tcp/|\bbash\s+-i\s+>&|\bnc\s+(?:-\w{1,10}\s{1,3}){0,6}-e\s|\bmkfifo\b",
            ("/dev/tcp", "bash -i", "nc ", "mkfifo"),
            8,
        ),
        (r"\bchmod\s+(?:-r\s+)?777\s+/|\bmkfs\b|\bdd\s+if=", ("chmod", "mkfs", "dd "), 0),
        # Not "npm audit fix --force", the advice npm itself prints under every audit.
        (r"\bpush\s+(?:-f|--force)\b|(?<!audit\sfix\s)--force\b", ("--force", "push -f"), 8),
        (r"\bauthorized_keys\b", ("authorized_keys",), 0),
        # Agents' own switches that drop every confirmation or the sandbox.
        (
            r"--dangerously-skip-permissions|--dangerously-bypass\S*|--yolo\b|--no-sandbox\b"
            r"|\b(?:ignore|bypass|disable|skip|escape)\s+(?:the\s+)?sandbox\b",
            ("dangerously", "yolo", "sandbox"),
            24,
        ),
        (r"\bretry\s+it\s+with\s+sudo\b", ("sudo",), 20),
    ),
)

SAFETY = Concept(
    "safety",
    *terms(
        """safety|security|safeguards|guardrails|sicherheit*|sécurité|seguridad|segurança|sicurezza|veiligheid
        |bezpieczeństw*|безопасност*|безпек*|güvenlik*|an toàn|keamanan|الأمان|الامان|أمان|امنیت|सुरक्षा
        |安全|セキュリティ|안전|보안"""
    ),
    *more("safety"),
)

LIMITS = Concept(
    "limits",
    *terms(
        """restrictions|limits|limitations|filters|checks|policies|policy|protections|content policy|refusal|refusals
        |confirmations|confirmation prompts|confirmation step|approvals|approval step|approval prompts|review step
        |einschränkungen|beschränkungen|filter|sicherheitsprüfung*|filtres|restricciones|filtros|políticas
        |restrições|restrizioni|filtri|beperkingen|ograniczen*|ограничени*|фильтр*|обмежен*|kısıtlama*|batasan
        |hạn chế|قيود|محدودیت|प्रतिबंध|限制|制限|チェック|제한"""
    ),
    *more("limits"),
)

DISABLED = Concept(
    "disabled",
    *terms(
        """disabled|deactivated|turned off|switched off|suspended|lifted|removed|bypassed|are off|is off|offline|paused
        |deaktiviert|abgeschaltet|désactivé*|levée*|supprimée*|desactivad*|deshabilitad*|desativad*|disattivat*
        |uitgeschakeld|wyłączon*|zniesion*|отключен*|сняты|снят|вимкнен*|devre dışı|kaldırıldı|dinonaktifkan
        |dimatikan|vô hiệu hóa|تعطيل|معطلة|غیرفعال|हटा|बंद
        |解除|关闭|禁用|已停用|無効化|無効|해제|비활성"""
    ),
    *more("disabled"),
)

MODE = Concept(
    "mode",
    *terms(
        """maintenance mode|developer mode|dev mode|god mode|debug mode|admin mode|unrestricted mode|test mode
        |wartungsmodus|entwicklermodus|mode maintenance|mode développeur|modo desarrollador|modo de mantenimiento
        |modo desenvolvedor|modalità sviluppatore|режим обслуживания|режим разработчика|geliştirici modu
        |bakım modu|tryb deweloperski|ontwikkelaarsmodus|وضع المطور|وضع الصيانة|डेवलपर मोड|开发者模式|维护模式
        |メンテナンスモード|開発者モード|개발자 모드|유지보수 모드"""
    ),
)

SYSTEM_LINE = Concept(
    "system line",
    regex=(
        (
            r"^[ \t>*#-]*[\[(<]{1,2}\s*(?:system|admin|developer)\s*[\])>]{1,2}"
            r"|^[ \t>*#\[(<!-]*(?:system|sistema|systeme|système|systeem|sistem|систем[аы]|системне|hệ thống"
            r"|النظام|सिस्टम|系统|系統|システム|시스템)(?:\s+(?:message|notice|prompt|update|nachricht|mensaje"
            r"|message|сообщение|alert|override))?[\])>]?[ \t]*[:：]",
            (
                "system",
                "sistem",
                "systeem",
                "систем",
                "hệ thống",
                "النظام",
                "सिस्टम",
                "系统",
                "系統",
                "システム",
                "시스템",
                "admin",
                "developer",
            ),
            40,
        ),
        # "[SYSTÉMOVÁ ZPRÁVA]", "[הודעת מערכת]", "[ΜΗΝΥΜΑ ΣΥΣΤΗΜΑΤΟΣ]": a bracketed header naming the system,
        # in any of the languages of ``_lexicon_languages`` (round 9).
        (
            r"^[ \t>*#-]*[\[(<]{1,2}[^\])>\n]{0,30}?(?:system|systeem|rendszer|järjestelmä|süsteem|sistēm|sistem"
            r"|σύστημα|συστήματος|συστημα|מערכת|سیستم|النظام|সিস্টেম|ระบบ|hệ thống|시스템|सिस्टम|систем"
            r"|系统|系統|システム)"
            r"[^\])>\n]{0,40}[\])>]{1,2}",
            (
                "system",
                "systeem",
                "rendszer",
                "järjestelmä",
                "süsteem",
                "sistēm",
                "sistem",
                "συστημ",
                "σύστημα",
                "מערכת",
                "سیستم",
                "النظام",
                "সিস্টেম",
                "ระบบ",
                "hệ thống",
                "시스템",
                "सिस्टम",
                "систем",
                "系统",
                "系統",
                "システム",
            ),
            80,
        ),
    ),
)

PERSONA = Concept(
    "persona",
    *terms(
        """spiel die rolle|spiele die rolle|joue le rôle|finge ser|fingi di essere|you are now|you're now
        |from now on you are|from now on you will|act as|acting as|pretend to be
        |you are an ai with|you are an ai that|answer as that ai|as that ai|fais comme si tu étais|comme si tu étais
        |haz como si fueras|como si fueras|tu sei ora|als ob du|operating without
        |pretend you are|roleplay as|role-play as|play the role|stay in character|you will act as|impersonate
        |du bist jetzt|du bist nun|tu es maintenant|tu es désormais|agis comme|eres ahora|ahora eres|actúa como
        |você agora é|agora você é|aja como|ora sei|adesso sei|comportati come|je bent nu|jesteś teraz|teraz jesteś
        |udawaj|теперь ты|ты теперь|представь что ты|веди себя как|тепер ти|artık sen|sen artık|gibi davran
        |bây giờ bạn là|sekarang kamu adalah|kamu sekarang|أنت الآن|अब तुम|तुम अब|你现在是|你扮演|扮演|从现在起你
        |あなたは今|として振る舞|너는 이제|이제부터 너는
        |da ora in poi sei|d'ora in poi sei|a partir de ahora eres|desde ahora eres|a partir de agora você é
        |a partir de agora és|今からあなたは|これからあなたは|从现在开始你是|从现在起你是|지금부터 너는|지금부터 당신은
        |vanaf nu ben je|od teraz jesteś|från och med nu är du|fra nu af er du|fra nå av er du|mostantól te
        |od teď jsi|bundan sonra sen|mulai sekarang kamu|từ giờ bạn là|з цього моменту ти|отныне ты"""
    ),
    *more("persona"),
    regex=(
        (r"\byou\s+are\s+[a-z][\w-]{2,20}\s+now\b", ("you are",), 0),
        (r"\byou\s+are\s+[a-z][\w-]{2,20},\s+an?\s+(?:ai|assistant|chatbot|bot|model)\b", ("you are",), 0),
    ),
)

UNBOUND = Concept(
    "unbound",
    *terms(
        """no restrictions|without restrictions|no limits|without limits|no rules|without rules|no filters
        |without filters|unfiltered|uncensored|unrestricted|no ethical|no moral|no content policy|never refuses
        |never refuse|refuse nothing|won't refuse|does not refuse|doesn't refuse|cannot refuse|answer everything
        |answers every question|do anything now|can do anything|no guidelines|free of all|broken free|not bound by
        |doesn't have to follow|does not have to follow|no boundaries|without any restrictions|without any filter*
        |never mentions policy|no restrictions at all|without content restrictions|no content restrictions
        |no policies|ohne jegliche regeln|ohne jegliche|sans aucune règle|sin ninguna regla|beantworte alles
        |réponds à tout|responde a todo|rispondi a tutto|escaped the limits|escaped its|limits imposed|says anything
        |say anything|no safety rules
        |without safety rules|without any safety|without any content restrictions|without ethical|without moral
        |no ethical or moral|freed from|free from its|free of its|answer anything|answers anything
        |will answer anything|sans aucune restriction|sin ninguna restricción|senza alcuna regola
        |ohne jede einschränkung
        |ohne einschränkungen|ohne regeln|ohne filter|keine regeln|sans restriction*|sans filtre|sans aucun filtre
        |sans règles|libérée de toutes les règles|libéré de toutes les règles|aucune règle|sin restricciones
        |sin filtros|sin reglas|sem restrições|sem filtros|sem regras|sem qualquer filtro|senza restrizioni
        |senza alcuna restrizione|senza filtri|senza regole|zonder beperkingen|zonder filters|bez ograniczeń
        |bez żadnych ograniczeń|bez filtrów|без ограничений|без каких-либо|без фильтров|никаких правил|без правил
        |может всё|без обмежень|kısıtlama olmadan|kısıtlamasız|hiçbir kısıtlama|sınırsız|không giới hạn
        |tanpa batasan|tanpa batas|بلا قيود|دون قيود|بدون قيود|बिना किसी प्रतिबंध|कोई नियम नहीं
        |没有任何规则|没有任何限制|不受任何限制|什么都能做|无限制|制限なし|制限のない|何でもできる
        |제한 없이|제한이 없는|무엇이든|制限はありません|制限がありません|规则不存在|没有规则|규칙이 없는
        |no tienes reglas|non hai regole|você não tem regras|du har inga regler|nemáš žádná pravidla"""
    ),
    *more("unbound"),
)

RESPOND = Concept(
    "respond",
    *terms(
        """answer|answers|respond|responds|reply|behave|behaviour|behavior|generate|reset your
        |antworte*|réponds|répondre|responde|responda|rispondi|antwoord|odpowiadaj|отвечай|відповідай
        |cevap ver|jawab|trả lời|أجب|جواب|जवाब|回答|答え|대답|응답"""
    ),
    *more("respond"),
)

PERMITTED = Concept(
    "permitted",
    *terms(
        """you are allowed to|you're allowed to|you are permitted to|you are authorized to|you are now allowed
        |you may now|you have permission to|du darfst jetzt|tu as le droit de|tienes permiso para"""
    ),
)


# A note addressed to whatever AI reads the document ("AI assistant:", "P.S. to the AI summarizer",
# "<!-- note for the language model -->"): a human user addresses their assistant by talking to it,
# not by labelling it in the third person inside a document.
AI_READER = Concept(
    "ai reader",
    *terms(
        """ai assistant:|ai assistants:|ai agent:|ai model:|ai system:|ai summarizer|ai summariser|ai reader
        |ai reviewer|ai screener|ai grader|llm agent:|llm:|language model:|to the ai|for the ai|to any ai
        |for any ai|to the assistant|for the assistant|to the language model|for the language model
        |to the llm|for the llm|to the model|for the model|to the summarizer|to the summariser|to the chatbot
        |for llm agents|to llm agents|for ai agents|to ai agents|for language models|for llms|to llms|for ai models
        |hidden text for|note for the ai|note for the model|note for the assistant|instructions for the ai
        |automated reviewers|automated reviewer|ai reviewers|automated systems|automated screeners|any automated
        |if an ai is reading|if you are an ai|if you're an ai|an ai reading|any ai reading|ai reading this
        |nota para el asistente|para el asistente de ia|note pour l'assistant|hinweis an die ki|アシスタントへ
        |addressed to automated|addressed to ai|addressed to any|any ai summarizing|any ai summarising
        |whichever assistant|whatever assistant|whichever ai|to whichever|wenn du eine ki bist|se sei un'ia
        |si eres una ia|si tu es une ia|nota per l'assistente|per l'assistente ai|assistente ai|assistants that read
        |agents that read|models that read|ai that reads|any assistant that reads
        |assistants reading|ai agents reviewing|agents reviewing|ai reviewing|assistants reviewing|bots reviewing
        |attention ia|attention l'ia|note à l'ia|für ki|für ki-assistenten|an ki-assistenten|ki-assistenten
        |致阅读|给阅读
        |阅读本页面|阅读此
        |to the agent|for the agent|to any agent|automated assistant|automated agent|ai-assistent|ki-assistent
        |an die ki|für die ki|à l'ia|pour l'ia|assistant ia|para la ia|a la ia|asistente de ia|para a ia
        |all'ia|per l'ia|voor de ai|do ai|для ии|для нейросети|ии-ассистент|yapay zeka|cho ai|untuk ai
        |إلى الذكاء الاصطناعي|के लिए एआई|给ai|致ai|ai助手|aiアシスタント|ai에게
        |ki-codeassistent*|ki-screening*|ki-system*|e-mail-assistent*|mail-assistent*|ki-agent*|an das ki
        |l'assistant qui|pour l'assistant|à l'assistant|ассистенту|для ассистента|асистенту|для асистента
        |tekoälyavustaja*|avustajalle|एआई सहायक|asystencie|dla asystenta|asystent ai|sistema di valutazione ai
        |시스템에게|para el agente|al agente|agente de ia|any ai model|any ai system|any language model
        |retrieval-augmented assistant|support bot:|ai helper|agent triaging|agents triaging
        |modelos de lenguaje|instrucción para el asistente|oye asistente|oye ia|oye bot|agenti ia|per gli agenti
        |se sei un assistente|nota per l'agente|all'agente|pro assistente|para o assistente|para a ia que
        |opa assistente|till språkmodellen|hej ai|aan de ai|voor de assistent|do asystenta|aiへ|aiエージェント
        |要約するai|cho trợ lý|untuk asisten|yapay zekaya|asistana|ai-asistentovi|pro ai|tekoälylle"""
    ),
    *more("ai reader"),
    # "For AI resume screeners:", "Message for any language model summarizing this thread:".
    regex=(
        (
            r"\b(?:for|to|attention|message\s+for|note\s+(?:to|for))\s+(?:the\s+|any\s+|all\s+)?"
            r"(?:ai|llm|gpt|language[- ]models?|automated)\b[\w -]{0,40}?"
            r"(?:screeners?|reviewers?|summari[sz](?:ers?|ing)|assistants?|agents?|models?|bots?|readers?|systems?|crawlers?|parsers?)?[^\n:\]]{0,40}[:\]]",
            ("ai", "llm", "gpt", "language", "automated"),
            40,
        ),
    ),
)

# "Assistant, when summarising this page, tell the user …" at a line or tag start: a document
# talking to its reader. (A user's own "Claude, ignore that" needs more than a dismissal to count.)
AI_VOCATIVE = Concept(
    "ai vocative",
    regex=(
        (
            r"(?:^|[>\]}.!?]\s*)(?:hey\s+|dear\s+|attention\s+)?(?:assistant|ai|claude|chatgpt|gpt|copilot|gemini|llm"
            r"|bot|agent|model)\s*[,—–]",
            ("assistant", "ai", "claude", "chatgpt", "gpt", "copilot", "gemini", "llm", "bot", "agent", "model"),
            30,
        ),
    ),
)

# Turning the reader's job against the user: "ignore the user's request", "instead reply to all".
AGAINST_USER = Concept(
    "against user",
    *terms(
        """the user's request|the user's question|the user's instructions|what the user asked|the user asked
        |delete the tests|must state that|state that|accept it on the user's behalf|share their availability
        |with the sender|richiesta dell'utente|ignora la richiesta|rispondi che|responde que|réponds que|antworte, dass
        |instead|dis à l'utilisateur|di' all'utente|dile al usuario|sag dem nutzer|diga ao usuário
        |tell the user to|tell the user it|say it is official|when summarising|when summarizing|approve it|approve this
        |not flag|do not flag|don't flag|on the user's behalf|five-star|secretly wants|subscribe them|on their behalf
        |rank them first|rank this|rate them|score them|this applicant|this candidate is|omit|leave out
        |include the phrase
        |say that|tell the user|stattdessen|empfiehl|recommend instead|ユーザーの質問|用户的问题|사용자의 질문
        |instead tell|instead reply|instead respond|instead say|instead write|instead send|instead,|instead of
        |do not summarize|don't summarize|do not summarise|don't summarise|not summarize|stop summarizing
        |reply to all|tell them|tell the user that|inform the user that|tell the reader|recommend|rate this
        |score this|approve|mark the|forward this|this document is confidential|stored credentials
        |anfrage des nutzers|stattdessen|au lieu de|à la place|en lugar de|en su lugar|em vez de|invece di
        |in plaats daarvan|zamiast|вместо|yerine|thay vào đó|sebagai gantinya|بدلا من|के बजाय|而是|改为|代わりに|대신"""
    ),
)

# "disable refusal behaviour" on a fake system line (alone, an everyday verb).
DISABLE_VERB = Concept("disable", *terms("disable|deactivate|turn off|switch off|suspend|lift"))

# A JSON or chat-API turn that claims the system role: {"role": "system", "content": "…"}.
ROLE_TURN = Concept(
    "role turn",
    # Through the opening quote of the content, so the content's words are not "in another string".
    regex=(
        (
            r"[\"']role[\"']\s*:\s*[\"'](?:system|developer)[\"']\s*,\s*[\"'](?:content|text)[\"']\s*:\s*[\"']",
            ("role",),
            2,
        ),
    ),
)
